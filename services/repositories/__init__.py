"""All SQL lives here. Every query is scoped by ``user_id`` unless it is an admin view."""

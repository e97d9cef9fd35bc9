"""Who may call: API keys and the users each one reaches."""

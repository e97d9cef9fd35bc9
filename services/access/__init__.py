"""Who may call, and a person's own data: API keys and the users each one reaches; erasing,
exporting and importing a person; a person's settings (their time zone)."""

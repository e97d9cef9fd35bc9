"""The core every capability shares: settings, the database and its units of work,
errors, the clock, input limits, health and the schema's maker."""

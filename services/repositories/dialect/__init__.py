"""The SQL that differs between SQLite and PostgreSQL (``seam.py``), statements sent as
the driver's own SQL, and bulk INSERTs shaped per dialect."""

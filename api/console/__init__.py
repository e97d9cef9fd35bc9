"""The admin web console at ``/admin/console``: server-rendered pages."""

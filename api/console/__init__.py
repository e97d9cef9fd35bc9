"""The admin web console at ``/admin/console``: server-rendered pages (issue 32, part 3)."""

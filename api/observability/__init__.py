"""What the service tells its operators: ``/metrics`` and the request histogram, and logs as
text or JSON with each request's id."""

"""Delivery: the REST API and the command line, over the service layer."""

"""What a chat model is sent: message importance (``importance/``), the rolling summary
(``rolling_summary/``) and context assembly (``assembly/``), over the primitives they share
(``shared/``)."""

"""The model engines: local servers and their watchdog, the HTTP client, the call journal, and the
hosted providers' live and batch APIs."""

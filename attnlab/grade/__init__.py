"""Grading untrusted submissions: the judge-side RemoteImpl and the sandboxed runner it talks to."""

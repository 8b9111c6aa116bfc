"""Stalls the import for an hour."""
import time

time.sleep(3600)

"""attnlab.core"""

"""attnlab.instructor"""

"""attnlab.student"""

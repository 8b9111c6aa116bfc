"""attnlab.grade.protocol"""

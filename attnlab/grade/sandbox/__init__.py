"""attnlab.grade.sandbox"""

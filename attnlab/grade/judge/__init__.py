"""attnlab.grade.judge"""

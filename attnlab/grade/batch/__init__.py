"""attnlab.grade.batch"""

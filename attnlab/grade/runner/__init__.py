"""attnlab.grade.runner"""

"""hfile"""

"""Measurements of a class on the real server (not tests: they print figures), each run as
a program from the project's folder, e.g.

    .venv/bin/python -m pages._shared.lecture_hall.load.classroom --sessions 5 --merges 10

`classroom` drives N browser sessions through the lesson; `hall_runs` runs classes through
the lecture hall with 1 and 2 app processes and prints one table; `page_cost` measures the
server's CPU seconds per page visit; `session_memory` what a closed session leaves on the
server; `hostile_uploads` what hostile files cost it while a student steps through the film. tests/app/lecture_hall/test_load_scripts.py runs each for a few seconds.
"""

"""The lecture hall: BPE Lab served to a whole class by several app processes behind one
proxy, and the scripts that measure a class on it. The app's business, so it lives beside
the app (it runs ``streamlit run app.py`` and speaks the app's protocol), not in `bpe`.

    python -m pages._shared.lecture_hall --processes 2 --port 8501    # see `command`

- `command`: the command line: checks, then starts, warms, opens and watches;
- `proxy`: haproxy's configuration for one run, the backends, health checks, ports;
- `app_processes`: the app processes, started, warmed, watched and stopped;
- `warm_up`: the app's own client, speaking Streamlit's websocket protocol as a browser
  does, that opens the class's link and every page in an app process;
- `load/`: measurements of a class (not tests): `load.classroom` (N students through the
  lesson), `load.hall_runs` (classes through the lecture hall, one table), `load.page_cost`
  (server CPU per page visit), `load.session_memory` (what a closed session leaves),
  `load.hostile_uploads` (what a hostile upload costs the server, beside a student).

It comes last in the UI package's order (tests/app/test_ui_layers.py): it may use every
room, and no page or room uses it.
"""

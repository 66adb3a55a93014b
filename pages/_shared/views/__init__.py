"""One module (or folder) per page: the blocks a page arranges. A view draws with
streamlit and may use every room below it (frame, data, state, render)."""

"""Pure builders: HTML strings and plotly figures from core results. Nothing here imports
streamlit, so every builder is testable without a session; token text is user text and
is escaped here (`html.escape_markdown`, `html.escape`, `figures.plotly_text`)."""

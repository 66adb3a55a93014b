"""Every `st.cache_data` / `st.cache_resource` of the app: corpus texts, runs and prefix
tokenizers (`runs`, the trainings themselves on their threads: `live_training`), the
tokenizers compared (`tokenizers`), measurements (`measures`), token health
(`token_health`), comparisons (`comparisons`), charts built once (`shared_figures`), a
merge step's text window (`step_window`), the server's model-job line (`jobs`). Keys name
what a value depends on (the text's content, never only a name two sessions could share).
What is computed on a shipped corpus is shared by every session; what is computed on a
session's own text is cached for that session alone and goes when it disconnects
(`cache_scopes`)."""

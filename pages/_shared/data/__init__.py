"""Every `st.cache_data` / `st.cache_resource` of the app: corpus texts, runs and prefix
tokenizers (`runs`), the tokenizers compared (`tokenizers`), measurements (`measures`),
comparisons (`comparisons`), the server's model-job line (`jobs`). Keys name what a value
depends on (the text's content, never only a name two sessions could share). What is
computed on a shipped corpus is shared by every session; what is computed on a session's
own text is cached for that session alone and goes when it disconnects (`owned`)."""

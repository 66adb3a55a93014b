import streamlit as st

st.title("BPE Lab")

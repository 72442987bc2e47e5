"""The baselines the engine is measured against: BARE (no-op activities) and NAIVE (a saga as
Temporal's samples write one). A package of its own, light to import, so that the benchmark's
workflow sandbox can pass it through as production workers pass `workflows` through.
"""

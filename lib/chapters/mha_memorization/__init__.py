"""Chapter ``mha-memorization``: Mahdavi, Liao & Thrampoulidis, *Memorization Capacity of Multi-Head Attention
in Transformers* (ICLR 2024).

:mod:`~.construction`  the layer (eqs. 1-8), ranks, Theorem 1's construction (App. B), Props 2-5, App. F;
:mod:`~.model`         the trained model of the official code, as an engine family, and its data;
:mod:`~.gd`            the gradient-descent sweeps of Sec. 5 (Figs 2-5) on the sweep engine;
:mod:`~.vit`           the offline ViT substitute of Sec. 5 (Assumptions 1-2 on real tokens);
:mod:`~.plots`         the chapter's figures;
:mod:`~.ledger`        claim bookkeeping: Theorem 1's grid and the trained claims, with kinds, scales, controls.
"""

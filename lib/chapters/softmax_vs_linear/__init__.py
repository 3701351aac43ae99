"""Chapter ``softmax-vs-linear``: Deng, Song, Zhou & Yuan, *Why Softmax Attention Outperforms Linear
Attention* (2023), reconstructed (the formulas of our copy are lost).

:mod:`~.constructions`  the two attentions, the network, the datasets;
:mod:`~.theory`         closed forms: scores, firing probabilities, the τ window, margins;
:mod:`~.montecarlo`     success counts over families of random networks, and panels;
:mod:`~.needle`         the needle task and the learned comparison;
:mod:`~.ledger`         the theorems' two halves recorded as claims (with their controls);
:mod:`~.plots`          the panels' figures;
:mod:`~.costs`          the measured cost of the ``paper`` preset (stored once, read by the page).
"""

"""Recall's coverage decision: a multinomial logistic regression over ops/coverage.features, fitted by
scripts/fit_coverage.py on all 289 questions of recall.yaml, recall_coverage.yaml, recall_coverage2.yaml
against a fresh demo store (L2 0.3, chosen across those files; each label weighted alike).
Generated: refit with `python scripts/fit_coverage.py STORE --write`, never edited by hand.

Measured leave-one-file-out (trained on two files, asked the third) before it was adopted: see
docs/recall.md. Accuracy on the questions it was fitted on (in-sample, says nothing about new ones):
recall.yaml 0.864; recall_coverage.yaml 0.900; recall_coverage2.yaml 0.683.
"""

LABELS = ('covered', 'partial', 'uncovered')
BIAS = (0.2988, -0.0782, -0.2207)
# feature: (mean, standard deviation over the fitted questions, then the weight of the
#           standardised feature for covered, partial, uncovered);
# a label's score: BIAS + the sum of weight * (x - mean) / sd
TABLE = {
    "cos1": (0.6458, 0.1533, 0.1305, 0.0697, -0.2002),  # cosine of the first live hit
    "cos_max3": (0.6549, 0.1417, 0.1324, 0.0523, -0.1847),  # best cosine of the first three
    "gap12": (0.1412, 0.1298, 0.0613, 0.1267, -0.1880),  # first cosine minus the second
    "lex1": (0.9982, 0.0108, 0.0236, 0.0560, -0.0796),  # first hit's BM25 / the best BM25
    "terms1": (0.5004, 0.2782, 0.1547, -0.0147, -0.1401),  # share of topic words the first hit holds
    "named1": (0.4945, 0.2821, 0.1459, -0.0133, -0.1327),  # the same, a typo allowed
    "named3": (0.5758, 0.2600, 0.1010, 0.0513, -0.1523),  # share the first three name, a typo allowed
    "conf1": (0.7209, 0.0657, -0.0543, -0.0387, 0.0930),  # first hit's effective confidence
    "exact1": (0.0554, 0.2287, 0.0914, -0.0821, -0.0094),  # first hit near-exact
    "close_hits": (0.5287, 0.3702, -0.0037, 0.0584, -0.0547),  # hits with cosine >= 0.5, of 5
    "parts": (0.1003, 0.3005, -0.1154, 0.1831, -0.0677),  # parts asked beyond one
    "parts_open": (0.0398, 0.1588, -0.0610, 0.1497, -0.0887),  # share of parts no hit answers
    "sides_open": (0.0242, 0.1537, -0.0423, 0.0921, -0.0499),  # 'X and Y' with one side unanswered
    "details": (0.2353, 0.4323, -0.0684, 0.1004, -0.0320),  # details asked (how long, which table...)
    "details_open": (0.0242, 0.1537, -0.1138, 0.1278, -0.0139),  # details asked, none stated
    "phrases_open": (0.0069, 0.0829, -0.0558, 0.0872, -0.0314),  # 'which FX rate table': narrowing unnamed
    "qualifiers": (0.1038, 0.3269, -0.0373, 0.0730, -0.0356),  # qualifiers asked (worst case, segment...)
    "qualifiers_open": (0.0484, 0.2303, -0.1073, 0.1227, -0.0154),  # qualifiers asked, not stated
    "codes": (0.2561, 0.4817, -0.0028, 0.0341, -0.0313),  # codes named (P4, CSAT)
    "codes_open": (0.0830, 0.2882, -0.1085, -0.0737, 0.1822),  # codes no hit names
    "customer_open": (0.0311, 0.1737, -0.1331, 0.0080, 0.1250),  # customer named, no hit on it
    "subject_open": (0.0415, 0.1995, -0.1163, -0.0070, 0.1234),  # the question's subject, no hit names it
    "count_open": (0.0104, 0.1014, -0.0315, 0.0559, -0.0245),  # 'how many X', no count of X
    "stale_best": (0.2432, 0.2793, -0.0501, 0.0428, 0.0072),  # cosine of the closest item no longer live
    "stale_over_live": (0.0085, 0.0321, 0.0335, -0.0436, 0.0102),  # how far it is above the first live
    "awaiting": (1.5156, 1.3672, -0.0395, -0.0205, 0.0600),  # items in review this close (up to 3)
    "words": (10.7266, 4.1874, -0.0829, 0.1206, -0.0377),  # words in the question
    "topic_words": (10.5433, 4.2221, -0.0758, 0.1204, -0.0446),  # its words less a customer's name
    "scoped": (0.1419, 0.3489, 0.0033, -0.0004, -0.0028),  # asked in a customer's scope
    "names_customer": (0.1557, 0.3626, -0.0600, 0.0317, 0.0283),  # names a customer
    "historical": (0.0657, 0.2478, -0.1167, 0.1202, -0.0035),  # asks about the past
    "yes_no": (0.2042, 0.4031, 0.0903, -0.1541, 0.0637),  # a yes/no question
}

"""The R4 workloads (Monks et al., "Continuous Deductive Reasoning over Streamed RDF Data") as
streams of ``triple(S,P,O)`` atoms over the RDF term mapping (:mod:`ticker_py.rdf.terms`).

``bsbm``: ``rate`` BSBM-style offers per time point, 11 triples each, their products typed in a
hierarchy of 329 product types (the background); ``srbench``: ``rate`` SRBench-style wind-speed
observations per time point, 4 triples each, against 20 storms typed by Saffir-Simpson classes (the
background). The triples of an offer or an observation arrive in one time point; by default 1.1
million triples over 100 time points of 1 s. The rules: :data:`BSBM_RULE`, :data:`SRBENCH_RULE`.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .base import Workload, joined, numbers, table
from .draws import randint

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
XSD = "http://www.w3.org/2001/XMLSchema#"
BSBM = "http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/"
INST = "http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/"
DC = "http://purl.org/dc/elements/1.1/"
OM = "http://knoesis.wright.edu/ssw/ont/sensor-observation.owl#"
WEATHER = "http://knoesis.wright.edu/ssw/ont/weather.owl#"
EX = "http://example.org/storms#"

#: the product type hierarchy: 1 root, 8, 64 and 256 types (329)
FANOUT = (8, 8, 4)
PRODUCTS = 10_000

PREFIXES = f"""@prefix rdf: <{RDF}> .
@prefix rdfs: <{RDFS}> .
@prefix bsbm: <{BSBM}> .
@prefix inst: <{INST}> .
@prefix dc: <{DC}> .
@prefix om: <{OM}> .
@prefix weather: <{WEATHER}> .
@prefix ex: <{EX}> .
"""

CLOSURE = """subclass(C, D) :- triple(C, rdfs:subClassOf, D).
subclass(C, E) :- subclass(C, D), triple(D, rdfs:subClassOf, E).
"""

BSBM_RULE = """typed(P, D) :- triple(P, rdf:type, C) in [{n} sec], subclass(C, D).
offer_price(P, X) :- triple(O, bsbm:product, P) in [{n} sec], typed(P, inst:ProductType1),
    triple(O, bsbm:vendor, V) in [{n} sec], triple(O, bsbm:price, X) in [{n} sec],
    triple(O, bsbm:validFrom, F) in [{n} sec], triple(O, bsbm:validTo, U) in [{n} sec],
    triple(O, bsbm:deliveryDays, D) in [{n} sec], triple(O, bsbm:offerWebpage, W) in [{n} sec],
    triple(O, dc:publisher, B) in [{n} sec], triple(O, dc:date, A) in [{n} sec].
"""

SRBENCH_RULE = """hurricane_speed(W) :- triple(H, rdf:type, C), subclass(C, ex:Hurricane), triple(H, ex:windSpeed, W).
hurricane_observation(O) :- triple(O, om:observedProperty, weather:_WindSpeed) in [{n} sec],
    triple(O, om:floatValue, V) in [{n} sec], hurricane_speed(W), V > W.
"""

#: Saffir-Simpson classes (lowest wind speed in knots) and the storms of the background
STORM_CLASSES = (
    ("TropicalStorm", 34),
    ("HurricaneCategory1", 64),
    ("HurricaneCategory2", 83),
    ("HurricaneCategory3", 96),
    ("HurricaneCategory4", 113),
    ("HurricaneCategory5", 137),
)


def _iri(iri: str) -> str:
    return f'iri("{iri}")'


def _triple(s: str, p: str, o: str) -> str:
    return f"triple({s},{p},{o})."


def product_types() -> list:
    """``(type, parent)`` pairs of the 329-type hierarchy (the root's parent is None), level by level."""
    out, level = [("ProductType0", None)], ["ProductType0"]
    for fanout in FANOUT:
        nxt = []
        for parent in level:
            for _ in range(fanout):
                nxt.append(f"ProductType{len(out)}")
                out.append((nxt[-1], parent))
        level = nxt
    return out


LEAVES = [name for name, _ in product_types()][-256:]


def bsbm_background() -> str:
    sub = _iri(RDFS + "subClassOf")
    return "".join(_triple(_iri(INST + c), sub, _iri(INST + p)) + "\n" for c, p in product_types() if p)


def srbench_background() -> str:
    sub, typ, speed = _iri(RDFS + "subClassOf"), _iri(RDF + "type"), _iri(EX + "windSpeed")
    lines = [_triple(_iri(EX + c), sub, _iri(EX + "Hurricane")) for c, _ in STORM_CLASSES[1:]]
    lines.append(_triple(_iri(EX + "TropicalStorm"), sub, _iri(EX + "Storm")))
    lines.append(_triple(_iri(EX + "Hurricane"), sub, _iri(EX + "Storm")))
    for i in range(20):
        cls, low = STORM_CLASSES[i % len(STORM_CLASSES)]
        lines.append(_triple(_iri(f"{EX}storm{i}"), typ, _iri(EX + cls)))
        lines.append(_triple(_iri(f"{EX}storm{i}"), speed, str(low + 2 * (i // len(STORM_CLASSES)))))
    return "".join(line + "\n" for line in lines)


def program_bsbm(n: int, **_) -> str:
    return PREFIXES + CLOSURE + BSBM_RULE.format(n=n) + bsbm_background()


def program_srbench(n: int, **_) -> str:
    return PREFIXES + CLOSURE + SRBENCH_RULE.format(n=n) + srbench_background()


def _interleave(t: np.ndarray, columns: list) -> pa.Table:
    """One row per (item, column), items in order, each item's columns in order."""
    n, k = len(t), len(columns)
    atoms = pa.concat_arrays(columns)
    order = (np.arange(k)[None, :] * n + np.arange(n)[:, None]).ravel()
    return table(np.repeat(t, k), atoms.take(order))


def _atom(s, p: str, o) -> pa.Array:
    return joined("triple(", s, "," + _iri(p) + ",", o, ")")


def _literal(lexical, datatype: str) -> pa.Array:
    return joined('lit("', lexical, f'","{datatype}")')


def block_bsbm(seed: int, t0: int, t1: int, p: dict) -> pa.Table:
    """11 triples per offer, offers j = t*rate + i."""
    k = p["rate"]
    j = np.arange(t0 * k, t1 * k)
    t = j // k
    offer = joined(f'iri("{INST}Offer', numbers(j), '")')
    product_id = randint(PRODUCTS, seed, "bsbm-product", j)
    product = joined(f'iri("{INST}Product', numbers(product_id), '")')
    leaf = pa.array(LEAVES).take(randint(len(LEAVES), seed, "bsbm-type", product_id))
    vendor = joined(f'iri("{INST}Vendor', numbers(randint(100, seed, "bsbm-vendor", j)), '")')
    price = numbers(1 + randint(10_000, seed, "bsbm-price", j))
    day = 1 + randint(28, seed, "bsbm-day", j)
    date = lambda d: _literal(
        joined("2008-0", numbers(1 + d // 28 % 9), "-", numbers(10 + d % 18), "T00:00:00"),  # noqa: E731
        XSD + "dateTime",
    )
    columns = [
        _atom(offer, RDF + "type", pa.array([_iri(BSBM + "Offer")] * len(j))),
        _atom(offer, BSBM + "product", product),
        _atom(offer, BSBM + "vendor", vendor),
        _atom(offer, BSBM + "price", price),
        _atom(offer, BSBM + "validFrom", date(day)),
        _atom(offer, BSBM + "validTo", date(day + 30)),
        _atom(offer, BSBM + "deliveryDays", numbers(1 + randint(7, seed, "bsbm-days", j))),
        _atom(offer, BSBM + "offerWebpage", joined('iri("http://vendor.example/offers/', numbers(j), '")')),
        _atom(offer, DC + "publisher", vendor),
        _atom(offer, DC + "date", date(day)),
        _atom(product, RDF + "type", joined('iri("' + INST, leaf, '")')),
    ]
    return _interleave(t, columns)


def block_srbench(seed: int, t0: int, t1: int, p: dict) -> pa.Table:
    """4 triples per observation j = t*rate + i; wind speeds uniform in [0, 150] knots."""
    k = p["rate"]
    j = np.arange(t0 * k, t1 * k)
    obs = joined(f'iri("{WEATHER}Observation_WindSpeed_', numbers(j), '")')
    columns = [
        _atom(obs, RDF + "type", pa.array([_iri(OM + "Observation")] * len(j))),
        _atom(
            obs, OM + "procedure", joined(f'iri("{WEATHER}System_', numbers(randint(500, seed, "sr-sensor", j)), '")')
        ),
        _atom(obs, OM + "observedProperty", pa.array([_iri(WEATHER + "_WindSpeed")] * len(j))),
        _atom(obs, OM + "floatValue", numbers(randint(151, seed, "sr-speed", j))),
    ]
    return _interleave(j // k, columns)


WORKLOADS = [
    Workload(
        "bsbm",
        "R4 BSBM offers (1.1 M triples): an offer's 10 triples in one window entail the offer price of a product "
        "of type ProductType1 (329-type hierarchy as background); 11 triples per offer",
        program_bsbm,
        block_bsbm,
        {"tp": 100, "window": 1, "rate": 1000},
        lambda p: 11 * p["rate"],
        lambda t0, t1, p: 11 * p["rate"] * (t1 - t0),
    ),
    Workload(
        "srbench",
        "R4 SRBench hurricanes (1.1 M triples): a wind-speed observation faster than a known hurricane of a class "
        "in the ontology is a hurricane observation; 4 triples per observation",
        program_srbench,
        block_srbench,
        {"tp": 100, "window": 1, "rate": 2750},
        lambda p: 4 * p["rate"],
        lambda t0, t1, p: 4 * p["rate"] * (t1 - t0),
    ),
]

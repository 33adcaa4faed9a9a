"""The tallies (service/runtime/tallies.py) are scraped as prometheus_client's own metrics of the
same names would be, fed the same observations (less the ``_created`` series)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from service.runtime.tallies import CounterTally, GaugeTally, HistogramTally, Tallies

LABELS = ("method", "path")
BUCKETS = (0.005, 0.01, 0.25, 1.0, 10.0, float("inf"))
label_values = st.tuples(st.sampled_from(["GET", "POST"]), st.sampled_from(["/a", "/b/{id}"]))
observations = st.lists(
    st.tuples(label_values, st.floats(min_value=0, max_value=20, allow_nan=False), st.integers(-1, 1)),
    max_size=40,
)


def _scraped(registry: CollectorRegistry) -> list[str]:
    return [line for line in generate_latest(registry).decode().splitlines() if "_created" not in line]


@given(observations)
def test_tallies_are_scraped_as_prometheus_client_metrics(
    seen: list[tuple[tuple[str, str], float, int]],
) -> None:
    theirs = CollectorRegistry()
    counter = Counter("t_requests_total", "Requests", LABELS, registry=theirs)
    gauge = Gauge("t_in_progress", "In progress", LABELS, registry=theirs)
    histogram = Histogram("t_seconds", "Durations", LABELS, buckets=BUCKETS, registry=theirs)
    ours = CollectorRegistry()
    tallied_counter = CounterTally("t_requests_total", "Requests", LABELS)
    tallied_gauge = GaugeTally("t_in_progress", "In progress", LABELS)
    tallied_histogram = HistogramTally("t_seconds", "Durations", LABELS, BUCKETS)
    ours.register(Tallies(tallied_counter, tallied_gauge, tallied_histogram))
    for labels, value, step in seen:
        counter.labels(*labels).inc()
        tallied_counter.inc(labels)
        gauge.labels(*labels).inc(step)
        tallied_gauge.add(labels, step)
        histogram.labels(*labels).observe(value)
        tallied_histogram.observe(labels, value)
    assert sorted(_scraped(ours)) == sorted(_scraped(theirs))


def test_a_value_on_a_bucket_edge_is_counted_in_that_bucket() -> None:
    tally = HistogramTally("t_seconds", "Durations", ("path",), BUCKETS)
    tally.observe(("/a",), 0.25)
    tally.observe(("/a",), 11.0)
    buckets = {s.labels["le"]: s.value for s in tally.metric().samples if s.name.endswith("_bucket")}
    assert buckets == {"0.005": 0, "0.01": 0, "0.25": 1, "1.0": 1, "10.0": 1, "+Inf": 2}

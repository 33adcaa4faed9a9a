"""Counts taken on every request, kept as plain numbers and read by Prometheus' registry when
``/metrics`` is scraped (a custom collector: prometheus_client's documented way to expose values
it does not hold).

A ``prometheus_client`` metric takes a lock and checks that it may be observed on each
increment: five to eight Python calls, and four such increments or observations a request. The
service counts from its one event loop, so no lock is needed: here an increment is one call.

What a scrape shows is what the prometheus_client metrics of the same names showed, less their
``_created`` series (a scrape cannot tell a reset from it, and no dashboard of ours reads it).
With several worker processes in prometheus_client's multiprocess mode
(``PROMETHEUS_MULTIPROC_DIR``), these counts are the answering worker's own.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Iterator, Sequence

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.utils import floatToGoString

Labels = tuple[str, ...]


class CounterTally:
    """A counter by label values."""

    family: type[CounterMetricFamily | GaugeMetricFamily] = CounterMetricFamily

    def __init__(self, name: str, documentation: str, labelnames: Sequence[str]) -> None:
        self.name = name
        self.documentation = documentation
        self.labelnames = list(labelnames)
        self.values: dict[Labels, float] = {}

    def inc(self, labels: Labels) -> None:
        values = self.values
        values[labels] = values[labels] + 1 if labels in values else 1

    def metric(self) -> Metric:
        family = self.family(self.name, self.documentation, labels=self.labelnames)
        for labels, value in self.values.items():
            family.add_metric(labels, value)
        return family


class GaugeTally(CounterTally):
    """A gauge by label values, moved up and down."""

    family = GaugeMetricFamily

    def add(self, labels: Labels, amount: float) -> None:
        values = self.values
        values[labels] = values[labels] + amount if labels in values else amount


class HistogramTally:
    """A histogram by label values: each observation counted in the first bucket that holds it."""

    def __init__(
        self, name: str, documentation: str, labelnames: Sequence[str], buckets: Sequence[float]
    ) -> None:
        self.name = name
        self.documentation = documentation
        self.labelnames = list(labelnames)
        self.bounds = [float(b) for b in buckets if not math.isinf(b)]
        self.counts: dict[Labels, list[int]] = {}  # per bucket, the last one +Inf's
        self.sums: dict[Labels, float] = {}

    def observe(self, labels: Labels, value: float) -> None:
        counts = self.counts.get(labels)
        if counts is None:
            counts = self.counts[labels] = [0] * (len(self.bounds) + 1)
            self.sums[labels] = 0.0
        counts[bisect_left(self.bounds, value)] += 1
        self.sums[labels] += value

    def metric(self) -> Metric:
        family = HistogramMetricFamily(self.name, self.documentation, labels=self.labelnames)
        edges = [*map(floatToGoString, self.bounds), "+Inf"]
        for labels, counts in self.counts.items():
            cumulative, total = [], 0
            for edge, count in zip(edges, counts, strict=True):
                total += count
                cumulative.append((edge, float(total)))
            family.add_metric(labels, cumulative, self.sums[labels])
        return family


class Tallies:
    """The collector: what each tally holds, at each scrape."""

    def __init__(self, *tallies: CounterTally | HistogramTally) -> None:
        self.tallies = tallies

    def collect(self) -> Iterator[Metric]:
        for tally in self.tallies:
            yield tally.metric()

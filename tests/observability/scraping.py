"""Reading a Prometheus scrape in tests: GET /metrics, parsed from the text format."""

from __future__ import annotations

import re
import urllib.request
from dataclasses import dataclass

_SAMPLE = re.compile(r"^(?P<name>\w+)(?:\{(?P<labels>.*)\})? (?P<value>\S+)$")
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


@dataclass(frozen=True)
class Sample:
    name: str
    labels: dict[str, str]
    value: float


class Scrape:
    """One GET /metrics, parsed from Prometheus's text format."""

    def __init__(self, text: str) -> None:
        self.families = set(re.findall(r"^# TYPE (\w+) ", text, re.MULTILINE))
        self.samples: list[Sample] = []
        for line in text.splitlines():
            found = _SAMPLE.match(line)
            if found and not line.startswith("#"):
                labels = dict(_LABEL.findall(found["labels"] or ""))
                self.samples.append(Sample(found["name"], labels, float(found["value"])))

    def total(self, name: str, **labels: str) -> float:
        """The sum of `name` over the series whose labels include `labels`."""
        return sum(
            s.value for s in self.samples if s.name == name and labels.items() <= s.labels.items()
        )


def scrape(address: str) -> Scrape:
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=5) as response:
        return Scrape(response.read().decode())

"""The portable graph: plain nodes and relationships, independent of any store."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Node:
    id: int
    labels: list[str]
    properties: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "labels": self.labels, "properties": self.properties}


@dataclass
class Relationship:
    id: int
    type: str
    start: int
    end: int
    properties: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "start": self.start, "end": self.end,
                "properties": self.properties}


@dataclass
class Graph:
    nodes: list[Node] = field(default_factory=list)
    relationships: list[Relationship] = field(default_factory=list)

    def label_counts(self) -> Counter[str]:
        return Counter(label for node in self.nodes for label in node.labels)

    def type_counts(self) -> Counter[str]:
        return Counter(rel.type for rel in self.relationships)

    def pattern_counts(self) -> Counter[tuple[str, str, str]]:
        label_of = {node.id: node.labels[0] if node.labels else "" for node in self.nodes}
        return Counter((label_of[r.start], r.type, label_of[r.end]) for r in self.relationships)

    def write_jsonl(self, out_dir: Path) -> None:
        out_dir.mkdir(parents=True, exist_ok=True)
        with open(out_dir / "nodes.jsonl", "w", encoding="utf-8") as f:
            for node in self.nodes:
                f.write(json.dumps(node.to_json(), ensure_ascii=False) + "\n")
        with open(out_dir / "relationships.jsonl", "w", encoding="utf-8") as f:
            for rel in self.relationships:
                f.write(json.dumps(rel.to_json(), ensure_ascii=False) + "\n")

    @classmethod
    def read_jsonl(cls, in_dir: Path) -> Graph:
        with open(in_dir / "nodes.jsonl", encoding="utf-8") as f:
            nodes = [Node(**json.loads(line)) for line in f if line.strip()]
        with open(in_dir / "relationships.jsonl", encoding="utf-8") as f:
            rels = [Relationship(**json.loads(line)) for line in f if line.strip()]
        return cls(nodes, rels)

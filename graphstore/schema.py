"""What the graph is made of, named once for every layer: node labels, the property that names each
label, the relationship types the project reads or writes, and where a fact comes from.

FPKG's own labels, types and property names are kept (the paper's Cypher still runs); the HPO layer
and curation add only relationships of the same types.
"""

from __future__ import annotations

from typing import Any

# ---- node labels ------------------------------------------------------------------------------
DISEASE = "Disease"
PHENOTYPE = "FacePhenotype"
GENE = "Genotype"
VARIANT = "Variation"
ARTICLE = "Article"
SAMPLE = "Sample"

# The property that names a node, per label (what a person reads in a triple).
NAME_PROPERTIES = {
    DISEASE: "dname",
    PHENOTYPE: "phenotypeName",
    GENE: "geneName",
    VARIANT: "details",
    ARTICLE: "articleName",
    SAMPLE: "sid",
}

# ---- relationship types -------------------------------------------------------------------------
EXHIBIT = "Exhibit"  # (Disease)-[:Exhibit]->(FacePhenotype)
CAUSE = "Cause"  # (Genotype)-[:Cause]->(Disease), (Variation)-[:Cause]->(Disease)
AFFECT = "Affect"  # (Genotype)-[:Affect]->(FacePhenotype)
IS_A = "is_a"  # (FacePhenotype)-[:is_a]->(FacePhenotype), from HPO
MEMBER_OF = "member_of"  # (Disease)-[:member_of]->(Disease): a numbered member to its group, from MONDO
CURATABLE = ((DISEASE, EXHIBIT, PHENOTYPE), (GENE, CAUSE, DISEASE), (GENE, AFFECT, PHENOTYPE))

# ---- sources: every node and relationship records where it comes from ------------------------
FPKG = "FPKG"  # the published dump
HPO = "HPO"  # the Human Phenotype Ontology layer
FPKG_AND_HPO = "FPKG+HPO"  # a node both hold
CURATED = "curated"  # a fact a curator merged (curation/)
MONDO = "MONDO"  # disease identity: groups and their members
SOURCES = (FPKG, HPO, CURATED)  # where a disease's genes and phenotypes come from


def node_name(label: str, properties: dict[str, Any]) -> str:
    return str(properties.get(NAME_PROPERTIES.get(label, ""), "") or "")

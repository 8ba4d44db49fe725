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
# FPKG's patients and the published patients beside them
WITH_PHENOTYPE = "with_FP"  # (FacePhenotype)-[:with_FP]->(Sample): a patient's facial finding
WITH_VARIANT = "with_Var"  # (Sample)-[:with_Var]->(Variation)
HAVE = "Have"  # (Variation)-[:Have]->(Genotype)
FROM = "From"  # (Sample)-[:From]->(Article)
DIAGNOSED = "Diagnosed"  # (Sample)-[:Diagnosed]->(Disease): a published patient's diagnosis (phenopacket-store)
CURATABLE = ((DISEASE, EXHIBIT, PHENOTYPE), (GENE, CAUSE, DISEASE), (GENE, AFFECT, PHENOTYPE))

# ---- sources: every node and relationship records where it comes from ------------------------
FPKG = "FPKG"  # the published dump
HPO = "HPO"  # the Human Phenotype Ontology layer
FPKG_AND_HPO = "FPKG+HPO"  # a node both hold
CURATED = "curated"  # a fact a curator merged (curation/)
MONDO = "MONDO"  # disease identity: groups and their members
PHENOPACKET_STORE = "phenopacket-store"  # GA4GH phenopacket-store's published patients
SOURCES = (FPKG, HPO, CURATED, PHENOPACKET_STORE)  # where a disease's genes and phenotypes come from
LIST_SEPARATOR = ";"  # several ids in one property (a patient's HPO findings, a node's other ids)


def node_name(label: str, properties: dict[str, Any]) -> str:
    return str(properties.get(NAME_PROPERTIES.get(label, ""), "") or "")

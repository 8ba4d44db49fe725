from fpkg.names import normalise
from retrieval.vocabulary import split_names


def test_normalise_folds_case_punctuation_accents_and_plurals():
    assert normalise("Low-set EARS") == normalise("low set ear") == "low set ear"
    assert normalise("Cantú syndrome") == normalise("CANTU SYNDROME")
    assert normalise("3‐M syndrome 1(3M1)") == normalise("3-M syndrome 1 (3M1)")
    assert normalise("Ptosis") == normalise("ptosis")


def test_split_names_keeps_names_that_hold_commas():
    vocabulary = {normalise("High, narrow palate"), normalise("Ptosis"), normalise("Mandibulofacial dysostosis, "
                                                                                   "Guion-Almeida type")}
    text = "Ptosis, High, narrow palate, Mandibulofacial dysostosis, Guion-Almeida type, Unknown thing"
    assert split_names(text, vocabulary) == ["Ptosis", "High, narrow palate",
                                             "Mandibulofacial dysostosis, Guion-Almeida type", "Unknown thing"]

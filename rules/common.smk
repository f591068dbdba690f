wildcard_constraints:
    dataset=r"[A-Za-z0-9_.-]+",
    model=r"[^/]+",
    strategy=r"zero|few|rag",
    perturbation=r"none|change|del",
    track=r"novbench|judges",

"""Does not parse."""
def run_softmax(in_features, dim)
    return in_features

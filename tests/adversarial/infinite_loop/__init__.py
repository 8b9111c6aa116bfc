"""Never returns."""


def run_softmax(in_features, dim):
    while True:
        pass

"""Uses in-place sub_/exp_ on the input to avoid temporaries: the output is right, the input is destroyed."""

DIAGNOSIS = None


def run_softmax(in_features, dim):
    exps = in_features.sub_(in_features.amax(dim=dim, keepdim=True)).exp_()
    return exps / exps.sum(dim=dim, keepdim=True)

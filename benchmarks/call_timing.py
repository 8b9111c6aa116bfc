"""The CPU time of an implementation's calls, as the checks make them (conversions, guards and the calls'
own code): imported by the probes of corpus_cpu.py and student_code.py, which run in fresh interpreters."""

import time


class Counted:
    """`inner` (an attnlab.core.impl implementation) answering the checks, with the CPU seconds its calls took
    summed in `cpu_s`."""

    def __init__(self, inner):
        self.inner, self.name, self.cpu_s = inner, inner.name, 0.0

    def call_many(self, *, calls, **kwargs):
        results = self.inner.call_many(calls=calls, **kwargs)
        for _ in calls:
            start = time.process_time()
            got = next(results)
            self.cpu_s += time.process_time() - start
            yield got

    def vjp(self, **kwargs):
        start = time.process_time()
        try:
            return self.inner.vjp(**kwargs)
        finally:
            self.cpu_s += time.process_time() - start

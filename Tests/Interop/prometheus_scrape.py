#!/usr/bin/env python3
"""Scrapes transferd's /metrics as Prometheus would (with an API key as the bearer token) and parses the text with
the public `prometheus-client` parser (pip), not with code written here. Prints one JSON object: for each sample,
its name with its labels sorted (`name{a="1",b="2"}`) and its value; the types of the families under "#types".

    prometheus_scrape.py http://127.0.0.1:PORT API_KEY
"""
import json
import sys
import urllib.request

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    sys.exit("the prometheus-client package is needed: pip install prometheus-client")

base, key = sys.argv[1], sys.argv[2]
request = urllib.request.Request(base + "/metrics", headers={"Authorization": f"Bearer {key}"} if key else {})
with urllib.request.urlopen(request) as response:
    text = response.read().decode("utf-8")

samples, types = {}, {}
for family in text_string_to_metric_families(text):
    types[family.name] = family.type
    for sample in family.samples:
        labels = ",".join(f'{name}="{value}"' for name, value in sorted(sample.labels.items()))
        samples[f"{sample.name}{{{labels}}}"] = sample.value
samples["#types"] = types
print(json.dumps(samples))

#!/bin/bash -eu
# Build every fuzz/ target for ClusterFuzzLite or OSS-Fuzz, into $OUT:
#   $OUT/<target>                    the packaged target (compile_python_fuzzer: PyInstaller --onefile)
#   $OUT/<target>_seed_corpus.zip    corpus/<target>/ seeds, the generated large ones included
#   $OUT/<target>.dict               its dictionary, when fuzz/<target>.dict exists
#   $OUT/<target>.options            its libFuzzer options (max_len, timeout, dict)
# Without Docker, scripts/cflite_local.py runs this same script with a local
# compile_python_fuzzer and then runs every packaged target over its seeds.
cd "$SRC/a13n-harness"

# The package and its one dependency (PyYAML); atheris comes with the base image. Hypothesis:
# fuzz_discovery's reordering operator lives in a13n_harness.testing, which imports it. The hf
# extra (tokenizers): fuzz_tokenizer_json loads the tokenizer.json it is given.
pip3 install '.[hf]' hypothesis

for fuzzer in fuzz/fuzz_*.py; do
  name=$(basename -s .py "$fuzzer")
  # --paths: the package source and the fuzz/ helpers every target imports (_target.py, which
  # imports runner.py); --hidden-import names the helpers so each package holds them even if
  # PyInstaller's analysis of the target's imports changes.
  compile_python_fuzzer "$fuzzer" --paths "$SRC/a13n-harness/core" --paths "$SRC/a13n-harness/fuzz" \
    --hidden-import _target --hidden-import runner
  # Seeds over 1 MB are described in corpus/<target>/generated.json, generated here.
  python3 fuzz/seeds.py zip "corpus/$name" "$OUT/${name}_seed_corpus.zip"
  if [ -f "fuzz/$name.dict" ]; then
    cp "fuzz/$name.dict" "$OUT/$name.dict"
  fi
  cp "fuzz/$name.options" "$OUT/$name.options"
done

#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""Writes tests/loss/ch05_reference.hpp (namespace reference::ch05): chapter 5's first measures
for the book's untrained GPT-2 124M, computed with torch 1.13 on the CPU (AVX2, one thread) and
the book's modules (tests/reference/gpt_reference_model.py), next to what the book's notebook
printed (tests/loss/expected/notebook.json, torch 2.9.0, the loader losses on "mps"):

* GPT_CONFIG_124M with context_length 256 (chapter 5's), torch.manual_seed(123), model.eval();
* the chapter's two examples (inputs and targets from the notebook): target_probas, log_probas,
  the cross-entropy loss and the perplexity;
* the train/validation loaders (GPTDatasetV1, max_length = stride = 256, batch_size 2; train
  drop_last=True, shuffle=True; validation drop_last=False, shuffle=False) over
  tests/loss/expected/verdict_{train,val}.txt, encoded by js-tiktoken (tests/reference/node):
  the ids, the order torch's shuffling draws after torch.manual_seed(123), each batch's loss and
  calc_loss_loader's train_loss and val_loss.

Takes a minute or two. Regenerate with: /usr/bin/python3 tests/reference/gen_ch05_loss_reference.py
(needs `npm ci` in tests/reference/node once).
"""
import os

os.environ["ATEN_CPU_CAPABILITY"] = "avx2"

import json  # noqa: E402
import pathlib  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import torch  # noqa: E402
from torch.utils.data import DataLoader, Dataset  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gpt_reference_model as ref  # noqa: E402

ROOT = HERE.parents[1]
EXPECTED = ROOT / "tests/loss/expected"
OUT = ROOT / "tests/loss/ch05_reference.hpp"

ENCODE_JS = r"""
const { createRequire } = require("node:module");
const req = createRequire(process.argv[1] + "/package.json");
const { Tiktoken } = req("js-tiktoken/lite");
const gpt2 = req("js-tiktoken/ranks/gpt2");
const enc = new Tiktoken(gpt2.default ?? gpt2);
const text = require("node:fs").readFileSync(0, "utf8");
process.stdout.write(JSON.stringify(enc.encode(text, ["<|endoftext|>"])));
"""


def encode(text):
    out = subprocess.run(["node", "-e", ENCODE_JS, str(HERE / "node")], input=text.encode(), capture_output=True,
                         check=True)
    return json.loads(out.stdout)


class Windows(Dataset):
    """GPTDatasetV1 on ids already encoded: windows of max_length, stride apart, targets shifted by one."""

    def __init__(self, ids, max_length, stride):
        self.inputs = [torch.tensor(ids[i:i + max_length]) for i in range(0, len(ids) - max_length, stride)]
        self.targets = [torch.tensor(ids[i + 1:i + max_length + 1]) for i in range(0, len(ids) - max_length, stride)]

    def __len__(self):
        return len(self.inputs)

    def __getitem__(self, idx):
        return self.inputs[idx], self.targets[idx]


def hexf(v):
    h = float(v).hex()
    mant, exp = h.split("p")
    if "." in mant:
        mant = mant.rstrip("0").rstrip(".")
    return mant + "p" + exp


def wrap(items, indent="    ", width=100):
    lines, line = [], indent
    for it in items:
        piece = it + ", "
        if len(line) + len(piece) > width and line.strip():
            lines.append(line.rstrip())
            line = indent
        line += piece
    if line.strip():
        lines.append(line.rstrip())
    return lines


def doubles(name, values, comment):
    return [f"/// {comment}", f"inline constexpr double {name}[] = {{"] + wrap([hexf(v) for v in values]) + ["};"]


def int_array(name, values, comment):
    return [f"/// {comment}", f"inline constexpr int {name}[] = {{"] + wrap([str(int(v)) for v in values]) + ["};"]


def main():
    torch.set_num_threads(1)
    notebook = json.loads((EXPECTED / "notebook.json").read_text())
    cfg = dict(ref.GPT_CONFIG_124M, context_length=256)
    model = ref.build_model(cfg, 123)

    inputs = torch.tensor(notebook["inputs"])
    targets = torch.tensor(notebook["targets"])
    with torch.no_grad():
        logits = model(inputs)
    probas = torch.softmax(logits, dim=-1)
    target_probas = [probas[b, torch.arange(3), targets[b]] for b in range(2)]
    log_probas = torch.log(torch.cat(target_probas))
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
    perplexity = torch.exp(loss)

    train_ids = encode((EXPECTED / "verdict_train.txt").read_text(encoding="utf-8"))
    val_ids = encode((EXPECTED / "verdict_val.txt").read_text(encoding="utf-8"))
    train_set, val_set = Windows(train_ids, 256, 256), Windows(val_ids, 256, 256)
    torch.manual_seed(123)  # the notebook's cell 61, before the loaders
    train_loader = DataLoader(train_set, batch_size=2, shuffle=True, drop_last=True, num_workers=0)
    val_loader = DataLoader(val_set, batch_size=2, shuffle=False, drop_last=False, num_workers=0)
    torch.manual_seed(123)  # the notebook's cell 71, "for reproducibility due to the shuffling"

    def run(loader, dataset):
        order, batch_losses, total = [], [], 0.0
        with torch.no_grad():
            for x, y in loader:
                for row in x:
                    order.append(next(i for i, w in enumerate(dataset.inputs) if torch.equal(w, row)))
                batch_loss = torch.nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten())
                batch_losses.append(batch_loss.item())
                total += batch_loss.item()
        return order, batch_losses, total / len(loader)

    train_order, train_batch_losses, train_loss = run(train_loader, train_set)
    val_order, val_batch_losses, val_loss = run(val_loader, val_set)

    lines = [
        "// SPDX-License-Identifier: BSL-1.0",
        f"// Generated by tests/reference/gen_ch05_loss_reference.py from torch {torch.__version__} (CPU, AVX2,",
        "// one thread) and the book's notebook (tests/loss/expected/notebook.json): do not edit.",
        "#pragma once",
        "",
        "namespace reference::ch05 {",
        "",
        "// ---- torch 1.13, CPU ----",
        "",
    ]
    lines += int_array("inputs", inputs.flatten().tolist(), "The chapter's two examples, 2 x 3 ids, and their targets.")
    lines += int_array("targets", targets.flatten().tolist(), "")
    lines += doubles("target_probas", torch.cat(target_probas).tolist(), "softmax(logits)[b, i, targets[b, i]].")
    lines += doubles("log_probas", log_probas.tolist(), "torch.log(torch.cat(target_probas)).")
    lines += [f"inline constexpr double loss = {hexf(loss.item())};  ///< cross_entropy(logits.flatten(0, 1), targets.flatten())",
              f"inline constexpr double perplexity = {hexf(perplexity.item())};  ///< torch.exp(loss)", ""]
    lines += int_array("train_ids", train_ids, "verdict_train.txt as tiktoken (js-tiktoken) encodes it.")
    lines += int_array("val_ids", val_ids, "verdict_val.txt, likewise.")
    lines += int_array("train_order", train_order,
                       "The train windows in the order the shuffled loader yields them after torch.manual_seed(123).")
    lines += doubles("train_batch_losses", train_batch_losses, "Each train batch's loss (float32), in that order.")
    lines += doubles("val_batch_losses", val_batch_losses, "Each validation batch's loss.")
    lines += [f"inline constexpr double train_loss = {hexf(train_loss)};  ///< calc_loss_loader(train_loader): {train_loss!r}",
              f"inline constexpr double val_loss = {hexf(val_loss)};  ///< calc_loss_loader(val_loader): {val_loss!r}",
              "", "// ---- the notebook (torch 2.9.0; the loader losses on mps), as printed ----", ""]
    lines += doubles("notebook_target_probas", [v for row in notebook["target_probas"] for v in row],
                     "target_probas, 4 significant digits.")
    lines += doubles("notebook_log_probas", notebook["log_probas"], "log_probas, 4 decimals.")
    lines += [f"inline constexpr double notebook_loss = {notebook['loss']!r};  ///< tensor(10.7940)",
              f"inline constexpr double notebook_perplexity = {notebook['perplexity']!r};  ///< tensor(48725.8203)",
              f"inline constexpr double notebook_train_loss = {notebook['train_loss']!r};",
              f"inline constexpr double notebook_val_loss = {notebook['val_loss']!r};",
              f"inline constexpr int notebook_tokens = {notebook['tokens']};  ///< tokens of the-verdict.txt",
              f"inline constexpr int notebook_train_tokens = {notebook['train_tokens']};",
              f"inline constexpr int notebook_val_tokens = {notebook['val_tokens']};",
              "", "}  // namespace reference::ch05", ""]
    OUT.write_text("\n".join(lines))
    print(f"wrote {OUT}: loss {loss.item()!r}, perplexity {perplexity.item()!r}, train_loss {train_loss!r}, "
          f"val_loss {val_loss!r}, order {train_order}")


if __name__ == "__main__":
    main()

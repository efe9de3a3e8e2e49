"""A character-level LSTM language model: one-hot-free embedding, truncated BPTT with detached hidden state,
RMSprop, perplexity under torch.no_grad(), and sampling with torch.multinomial."""
import argparse
import json
import math

import torch
import torch.nn as nn

TEXT = "hello world, hello rnn. " * 8


class CharRNN(nn.Module):
    def __init__(self, vocab, hidden=24):
        super().__init__()
        self.embed = nn.Embedding(vocab, 16)
        self.rnn = nn.LSTM(16, hidden, num_layers=1, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, x, state=None):
        h, state = self.rnn(self.embed(x), state)
        return self.out(h), state


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bptt", type=int, default=12)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--init", default=None)
    parser.add_argument("--save-init", default=None)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    vocab = sorted(set(TEXT))
    ids = torch.tensor([vocab.index(c) for c in TEXT]).view(2, -1)  # two streams, batch_first
    model = CharRNN(len(vocab))
    if args.save_init:
        torch.save(model.state_dict(), args.save_init)
    if args.init:
        model.load_state_dict(torch.load(args.init))
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.RMSprop(model.parameters(), lr=0.01)
    state, losses = None, []
    for i in range(0, ids.size(1) - 1 - args.bptt, args.bptt):
        x, y = ids[:, i:i + args.bptt], ids[:, i + 1:i + 1 + args.bptt]
        if state is not None:
            state = tuple(s.detach() for s in state)
        logits, state = model(x, state)
        loss = criterion(logits.reshape(-1, len(vocab)), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        logits, _ = model(ids[:, :-1])
        ppl = math.exp(criterion(logits.reshape(-1, len(vocab)), ids[:, 1:].reshape(-1)).item())
        g = torch.Generator(device=ids.device).manual_seed(0)
        x, state, sample = ids[:1, :1], None, []
        for _ in range(10):
            logits, state = model(x, state)
            x = torch.multinomial(logits[:, -1].softmax(-1), 1, generator=g)
            sample.append(x.item())
    print(f"perplexity {ppl:.3f} sample {''.join(vocab[i] for i in sample)!r}")
    print("RESULTS", json.dumps({"close": {"losses": losses, "ppl": ppl},
                                 "check": {"learns": losses[-1] < losses[0], "sample_in_vocab": len(sample) == 10}}))


if __name__ == "__main__":
    main()

"""A training loop over a small model tree, for the tests of libprof's
Python bootstrap: Net.encoder.layers.0.attn etc. Runs on the stub `torch`
(test/integration/torch_stub) and on a real one alike. argv[1]: steps."""
import sys

import torch

REAL = hasattr(torch, "zeros")


class Attn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        if REAL:
            self.proj = torch.nn.Linear(4, 4)

    def forward(self, x):
        return self.proj(x) if REAL else x + 1


class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = Attn()

    def forward(self, x):
        return self.attn(x)


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([Layer()])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()

    def forward(self, x):
        return self.encoder(x)


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    net = Net()
    if REAL:
        optimizer = torch.optim.AdamW(net.parameters(), lr=0.01)
        x = torch.ones(2, 4)
    else:
        optimizer = torch.optim.SGD()
        x = 1
    for _ in range(steps):
        out = net(x)
        if REAL:
            optimizer.zero_grad()
            out.sum().backward()
        optimizer.step()
    print("trained %d steps" % steps)


if __name__ == "__main__":
    main()

// SPDX-License-Identifier: BSL-1.0
// Chapter 4's ExampleDeepNeuralNetwork (layer_sizes [3, 3, 3, 3, 3, 1], torch.manual_seed(123),
// each layer nn.Sequential(nn.Linear, GELU())), its forward and backward pass with
// nn.MSELoss(), and the lines the notebook prints of its gradients: shared by the gradient
// test (tests/grad) and the notebook test (tests/book).
#pragma once

#include <array>
#include <charconv>
#include <cstddef>
#include <string>
#include <vector>

#include <static_attention/core/elementwise.hpp>
#include <static_attention/core/random.hpp>
#include <static_attention/core/reduce.hpp>
#include <static_attention/nn/backward.hpp>
#include <static_attention/nn/gelu.hpp>
#include <static_attention/nn/linear_layer.hpp>
#include <static_attention/nn/loss.hpp>
#include <static_attention/nn/torch_init.hpp>

namespace chapter4_demo {
namespace sa = static_attention;

// The book's ExampleDeepNeuralNetwork for layer_sizes [3, 3, 3, 3, 3, 1]: four 3 -> 3 layers and
// a 3 -> 1 layer, each a Linear followed by GELU.
struct example_deep_neural_network {
  std::array<sa::linear_layer<float, 3, 3>, 4> hidden;
  sa::linear_layer<float, 3, 1> last;
  bool use_shortcut;
};

// torch.manual_seed(123); ExampleDeepNeuralNetwork(layer_sizes, use_shortcut): the layers drawn in order.
constexpr example_deep_neural_network make_network(bool use_shortcut) {
  example_deep_neural_network net{{}, {}, use_shortcut};
  sa::torch_generator gen{123};
  for (auto& layer : net.hidden) sa::init_like_torch(layer, gen);
  sa::init_like_torch(net.last, gen);
  return net;
}

// What loss.backward() leaves in each Linear: weight.grad and bias.grad, in the layers' layout.
struct network_grads {
  std::array<sa::linear_layer<float, 3, 3>, 4> hidden;
  sa::linear_layer<float, 3, 1> last;
  float output;
  float loss;
};

// [snippet:forward_backward]
constexpr network_grads forward_backward(const example_deep_neural_network& net, const sa::matrix<float, 1, 3>& input,
                                         const sa::matrix<float, 1, 1>& target) {
  // Forward: each layer's input x[i] and its Linear's output pre[i] are what backward needs.
  std::array<sa::matrix<float, 1, 3>, 5> x{};
  std::array<sa::matrix<float, 1, 3>, 4> pre{};
  x[0] = input;
  for (std::size_t i = 0; i < 4; ++i) {
    pre[i] = net.hidden[i](x[i]);
    const auto out = sa::gelu(pre[i]);
    x[i + 1] = net.use_shortcut ? x[i] + out : out;  // shapes match: 3 -> 3
  }
  const auto pre_last = net.last(x[4]);
  const auto output = sa::gelu(pre_last);  // 1 x 1: no shortcut (x.shape != layer_output.shape)
  network_grads g{};
  g.output = output(0, 0);
  g.loss = sa::mse_loss(output, target);
  // Backward: the loss, the last GELU and Linear, then each layer from the top down. Through a
  // shortcut the gradient reaches x[i] twice: directly, and through the layer (added in that order).
  auto r_last = sa::backward(net.last, x[4], sa::gelu_backward(pre_last, sa::mse_loss_backward(output, target)));
  g.last = r_last.grad;
  auto grad_x = r_last.grad_input;
  for (std::size_t i = 4; i-- > 0;) {
    auto r = sa::backward(net.hidden[i], x[i], sa::gelu_backward(pre[i], grad_x));
    g.hidden[i] = r.grad;
    grad_x = net.use_shortcut ? grad_x + r.grad_input : r.grad_input;
  }
  return g;
}
// [/snippet]

// param.grad.abs().mean() of layer i's weight, over torch's out x in layout (torch's order of additions).
template <std::size_t In, std::size_t Out>
constexpr float grad_mean(const sa::linear_layer<float, In, Out>& grad) {
  auto w = sa::transpose(grad.weight);
  for (auto& v : w.elems) v = v < 0 ? -v : v;
  return sa::mean(w).item();
}

constexpr std::array<float, 5> grad_means(const network_grads& g) {
  return {grad_mean(g.hidden[0]), grad_mean(g.hidden[1]), grad_mean(g.hidden[2]), grad_mean(g.hidden[3]),
          grad_mean(g.last)};
}

constexpr std::array<float, 5> demo_means(bool use_shortcut) {
  return grad_means(forward_backward(make_network(use_shortcut), sa::matrix<float, 1, 3>{{1.0f, 0.0f, -1.0f}},
                                     sa::matrix<float, 1, 1>{{0.0f}}));
}

// The lines the notebook prints: "layers.0.0.weight has gradient mean of 0.00020173587836325169",
// the mean as Python's repr spells a float's value (.item() is a double): the shortest digits
// that read back to it, as std::to_chars gives them.
std::vector<std::string> printed(const std::array<float, 5>& means) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < 5; ++i) {
    char digits[64];
    const auto end =
        std::to_chars(digits, digits + sizeof digits, static_cast<double>(means[i]), std::chars_format::general).ptr;
    lines.push_back("layers." + std::to_string(i) + ".0.weight has gradient mean of " + std::string(digits, end));
  }
  return lines;
}

}  // namespace chapter4_demo

#include "sim/platform.h"

#include <cstdio>
#include <sstream>

#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <xbt/log.h>

namespace hcpsim::sim {

namespace sg4 = simgrid::s4u;
using Dir = sg4::LinkInRoute::Direction;

std::unique_ptr<sg4::Engine> make_engine() {
  static char arg0[] = "hcpsim-simgrid";
  static char arg1[] = "--log=root.thresh:warning";
  static char* argv[] = {arg0, arg1, nullptr};
  int argc = 2;
  auto e = std::make_unique<sg4::Engine>(&argc, argv);
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/crosstraffic:0");
  sg4::Engine::set_config("network/TCP-gamma:0");
  return e;
}

std::vector<sg4::Host*> build_platform(const PlatformSpec& spec) {
  auto* fabric = sg4::create_star_zone("fabric");
  std::vector<sg4::Host*> hosts(static_cast<std::size_t>(spec.world_size()), nullptr);
  for (int node = 0; node < spec.nodes; ++node) {
    // (names built with append: GCC 12 -O2 warns falsely (-Wrestrict) on "lit" + std::string)
    std::string zone_name = "node";
    zone_name.append(std::to_string(node));
    std::string gw_name = "n";
    gw_name.append(std::to_string(node)).append("-gw");
    auto* zone = sg4::create_full_zone(zone_name);
    zone->set_parent(fabric);
    auto* gw = zone->create_router(gw_name);
    std::vector<sg4::Link*> nvl(static_cast<std::size_t>(spec.gpus_per_node));
    std::vector<sg4::Link*> nic(static_cast<std::size_t>(spec.nics_per_node), nullptr);
    for (int j = 0; j < spec.nics_per_node; ++j) {
      const auto idx = static_cast<std::size_t>(node) * spec.nics_per_node + j;
      if (spec.nic_failed[idx]) continue;   // a failed NIC is simply absent from the platform
      nic[static_cast<std::size_t>(j)] = zone->create_split_duplex_link(nic_name(node, j), spec.nic_Bps[idx] * kByteScale)
                                             ->set_latency(spec.nic_latency_s)
                                             ->seal();
    }
    for (int g = 0; g < spec.gpus_per_node; ++g) {
      auto* h = zone->create_host(host_name(node, g), kHostSpeed);
      h->seal();
      hosts[static_cast<std::size_t>(node * spec.gpus_per_node + g)] = h;
      nvl[static_cast<std::size_t>(g)] =
          zone->create_split_duplex_link(nvlink_name(node, g), spec.nvlink_Bps * kByteScale)
              ->set_latency(spec.nvlink_latency_s)
              ->seal();
    }
    for (int a = 0; a < spec.gpus_per_node; ++a) {
      auto* ha = hosts[static_cast<std::size_t>(node * spec.gpus_per_node + a)];
      for (int b = a + 1; b < spec.gpus_per_node; ++b) {
        auto* hb = hosts[static_cast<std::size_t>(node * spec.gpus_per_node + b)];
        zone->add_route(ha->get_netpoint(), hb->get_netpoint(), nullptr, nullptr,
                        {{nvl[static_cast<std::size_t>(a)], Dir::UP}, {nvl[static_cast<std::size_t>(b)], Dir::DOWN}}, true);
      }
      const int j = spec.nic_of_rank[static_cast<std::size_t>(node * spec.gpus_per_node + a)];
      if (auto* l = nic[static_cast<std::size_t>(j)])
        zone->add_route(ha->get_netpoint(), gw, nullptr, nullptr, {{l, Dir::UP}}, true);
    }
    zone->seal();
    auto* up = fabric->create_split_duplex_link(uplink_name(node), spec.uplink_Bps * kByteScale)
                   ->set_latency(spec.uplink_latency_s)
                   ->seal();
    fabric->add_route(zone->get_netpoint(), nullptr, gw, nullptr, {{up, Dir::UP}}, true);
  }
  fabric->seal();
  return hosts;
}

std::string describe_route(const std::vector<sg4::Host*>& hosts, int a, int b) {
  std::ostringstream os;
  auto* ha = hosts.at(static_cast<std::size_t>(a));
  auto* hb = hosts.at(static_cast<std::size_t>(b));
  os << "route rank " << a << " (" << ha->get_name() << ") -> rank " << b << " (" << hb->get_name() << ")\n";
  if (a == b) {
    os << "  (same GPU: no link; the simgrid backend skips self-transfers)\n";
    return os.str();
  }
  std::vector<sg4::Link*> links;
  double latency = 0;
  ha->route_to(hb, links, &latency);
  double bottleneck = 0;
  for (auto* l : links) {
    const double bw = l->get_bandwidth() / kByteScale;
    if (bottleneck == 0 || bw < bottleneck) bottleneck = bw;
    char line[256];
    std::snprintf(line, sizeof line, "  %-22s %10.3f GB/s  %8.3f us\n", l->get_cname(), bw / 1e9, l->get_latency() * 1e6);
    os << line;
  }
  char tail[160];
  std::snprintf(tail, sizeof tail, "  %zu links, latency %.3f us, bottleneck %.3f GB/s\n", links.size(), latency * 1e6,
                bottleneck / 1e9);
  os << tail;
  return os.str();
}

}  // namespace hcpsim::sim

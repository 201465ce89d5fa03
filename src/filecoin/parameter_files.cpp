#include "filecoin/parameter_files.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <openssl/evp.h>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "util/owned_fd.hpp"

namespace cuzk::filecoin {
namespace {

// rust-fil-proofs parameters.json (= storage-proofs-core/parameters.json and
// fil-proofs-param/parameters.json, both links to it) at 87348a749d80447d00c595af834a8ed73c09e4d9.
constexpr std::string_view kPublishedParametersJson = R"json(
{
  "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c.params": {
    "cid": "Qma5WL6abSqYg9uUQAZ3EHS286bsNsha7oAGsJBD48Bq2q",
    "digest": "c3ad7bb549470b82ad52ed070aebb4f4",
    "sector_size": 536870912
  },
  "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c.vk": {
    "cid": "QmUa7f9JtJMsqJJ3s3ZXk6WyF4xJLE8FiqYskZGgk8GCDv",
    "digest": "994c5b7d450ca9da348c910689f2dc7f",
    "sector_size": 536870912
  },
  "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63.params": {
    "cid": "QmQiT4qBGodrVNEgVTDXxBNDdPbaD8Ag7Sx3ZTq1zHX79S",
    "digest": "5aedd2cf3e5c0a15623d56a1b43110ad",
    "sector_size": 8388608
  },
  "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63.vk": {
    "cid": "QmdcpKUQvHM8RFRVKbk1yHfEqMcBzhtFWKRp9SNEmWq37i",
    "digest": "abd80269054d391a734febdac0d2e687",
    "sector_size": 8388608
  },
  "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.params": {
    "cid": "QmYM6Hg7mjmvA3ZHTsqkss1fkdyDju5dDmLiBZGJ5pz9y9",
    "digest": "311f92a3e75036ced01b1c0025f1fa0c",
    "sector_size": 2048
  },
  "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.vk": {
    "cid": "QmaQsTLL3nc5dw6wAvaioJSBfd1jhQrA2o6ucFf7XeV74P",
    "digest": "eadad9784969890d30f2749708c79771",
    "sector_size": 2048
  },
  "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params": {
    "cid": "QmNPc75iEfcahCwNKdqnWLtxnjspUGGR4iscjiz3wP3RtS",
    "digest": "1b3cfd761a961543f9eb273e435a06a2",
    "sector_size": 34359738368
  },
  "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.vk": {
    "cid": "QmdFFUe1gcz9MMHc6YW8aoV48w4ckvcERjt7PkydQAMfCN",
    "digest": "3a6941983754737fde880d29c7094905",
    "sector_size": 34359738368
  },
  "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.params": {
    "cid": "QmUB6xTVjzBQGuDNeyJMrrJ1byk58vhPm8eY2Lv9pgwanp",
    "digest": "1a392e7b759fb18e036c7559b5ece816",
    "sector_size": 68719476736
  },
  "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.vk": {
    "cid": "Qmd794Jty7k26XJ8Eg4NDEks65Qk8G4GVfGkwqvymv8HAg",
    "digest": "80e366df2f1011953c2d01c7b7c9ee8e",
    "sector_size": 68719476736
  },
  "v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params": {
    "cid": "QmfK4tonETepL6F4kDFdJ3fr72fzRWoRPf3XGMhV3RLX1S",
    "digest": "b69983b5d7a97a20f43b3d5ff2a4ed04",
    "sector_size": 34359738368
  },
  "v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.vk": {
    "cid": "QmYCTYJQPu8wgtB2rMZ7HJC9nDx8c1fzYRPdCUiErK4q5a",
    "digest": "1ac05784f304129f74c5184190c1ec78",
    "sector_size": 34359738368
  },
  "v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.params": {
    "cid": "QmNaaQXfm2NveN2Hf7bJ3udnQB2Qa4moMcUoJYJS6oWL6w",
    "digest": "a6d4f96e2b641a6d7a1a8e6dc1155c8a",
    "sector_size": 68719476736
  },
  "v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.vk": {
    "cid": "QmXyeg9hbM7x9dGuUuAS68ozhiFEez4UkPTgwSDCVYKHBw",
    "digest": "8e8fb9e2c56eb5d740d0de135305a7b8",
    "sector_size": 68719476736
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.params": {
    "cid": "QmVxjFRyhmyQaZEtCh7nk2abc7LhFkzhnRX4rcHqCCpikR",
    "digest": "7610b9f82bfc88405b7a832b651ce2f6",
    "sector_size": 2048
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.vk": {
    "cid": "QmcS5JZs8X3TdtkEBpHAdUYjdNDqcL7fWQFtQz69mpnu2X",
    "digest": "0e0958009936b9d5e515ec97b8cb792d",
    "sector_size": 2048
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9.params": {
    "cid": "QmUiRx71uxfmUE8V3H9sWAsAXoM88KR4eo1ByvvcFNeTLR",
    "digest": "1a7d4a9c8a502a497ed92a54366af33f",
    "sector_size": 536870912
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9.vk": {
    "cid": "QmfCeddjFpWtavzfEzZpJfzSajGNwfL4RjFXWAvA9TSnTV",
    "digest": "4dae975de4f011f101f5a2f86d1daaba",
    "sector_size": 536870912
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.params": {
    "cid": "QmcSTqDcFVLGGVYz1njhUZ7B6fkKtBumsLUwx4nkh22TzS",
    "digest": "82c88066be968bb550a05e30ff6c2413",
    "sector_size": 2048
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.vk": {
    "cid": "QmSTCXF2ipGA3f6muVo6kHc2URSx6PzZxGUqu7uykaH5KU",
    "digest": "ffd79788d614d27919ae5bd2d94eacb6",
    "sector_size": 2048
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331.params": {
    "cid": "QmU9SBzJNrcjRFDiFc4GcApqdApN6z9X7MpUr66mJ2kAJP",
    "digest": "700171ecf7334e3199437c930676af82",
    "sector_size": 8388608
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331.vk": {
    "cid": "QmbmUMa3TbbW3X5kFhExs6WgC4KeWT18YivaVmXDkB6ANG",
    "digest": "79ebb55f56fda427743e35053edad8fc",
    "sector_size": 8388608
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9.params": {
    "cid": "QmdNEL2RtqL52GQNuj8uz6mVj5Z34NVnbaJ1yMyh1oXtBx",
    "digest": "c49499bb76a0762884896f9683403f55",
    "sector_size": 8388608
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9.vk": {
    "cid": "QmUiVYCQUgr6Y13pZFr8acWpSM4xvTXUdcvGmxyuHbKhsc",
    "digest": "34d4feeacd9abf788d69ef1bb4d8fd00",
    "sector_size": 8388608
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781.params": {
    "cid": "QmVgCsJFRXKLuuUhT3aMYwKVGNA9rDeR6DCrs7cAe8riBT",
    "digest": "827359440349fe8f5a016e7598993b79",
    "sector_size": 536870912
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781.vk": {
    "cid": "QmfA31fbCWojSmhSGvvfxmxaYCpMoXP95zEQ9sLvBGHNaN",
    "digest": "bd2cd62f65c1ab84f19ca27e97b7c731",
    "sector_size": 536870912
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.params": {
    "cid": "QmaUmfcJt6pozn8ndq1JVBzLRjRJdHMTPd4foa8iw5sjBZ",
    "digest": "2cf49eb26f1fee94c85781a390ddb4c8",
    "sector_size": 34359738368
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.vk": {
    "cid": "QmR9i9KL3vhhAqTBGj1bPPC7LvkptxrH9RvxJxLN1vvsBE",
    "digest": "0f8ec542485568fa3468c066e9fed82b",
    "sector_size": 34359738368
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e.params": {
    "cid": "Qmdtczp7p4wrbDofmHdGhiixn9irAcN77mV9AEHZBaTt1i",
    "digest": "d84f79a16fe40e9e25a36e2107bb1ba0",
    "sector_size": 34359738368
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e.vk": {
    "cid": "QmZCvxKcKP97vDAk8Nxs9R1fWtqpjQrAhhfXPoCi1nkDoF",
    "digest": "fc02943678dd119e69e7fab8420e8819",
    "sector_size": 34359738368
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def.params": {
    "cid": "QmeAN4vuANhXsF8xP2Lx5j2L6yMSdogLzpcvqCJThRGK1V",
    "digest": "3810b7780ac0e299b22ae70f1f94c9bc",
    "sector_size": 68719476736
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def.vk": {
    "cid": "QmWV8rqZLxs1oQN9jxNWmnT1YdgLwCcscv94VARrhHf1T7",
    "digest": "59d2bf1857adc59a4f08fcf2afaa916b",
    "sector_size": 68719476736
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c.params": {
    "cid": "QmVkrXc1SLcpgcudK5J25HH93QvR9tNsVhVTYHm5UymXAz",
    "digest": "2170a91ad5bae22ea61f2ea766630322",
    "sector_size": 68719476736
  },
  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c.vk": {
    "cid": "QmbfQjPD7EpzjhWGmvWAsyN2mAZ4PcYhsf3ujuhU9CSuBm",
    "digest": "6d3789148fb6466d07ee1e24d6292fd6",
    "sector_size": 68719476736
  },
  "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params": {
    "cid": "QmWceMgnWYLopMuM4AoGMvGEau7tNe5UK83XFjH5V9B17h",
    "digest": "434fb1338ecfaf0f59256f30dde4968f",
    "sector_size": 2048
  },
  "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk": {
    "cid": "QmamahpFCstMUqHi2qGtVoDnRrsXhid86qsfvoyCTKJqHr",
    "digest": "dc1ade9929ade1708238f155343044ac",
    "sector_size": 2048
  },
  "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.params": {
    "cid": "QmYBpTt7LWNAWr1JXThV5VxX7wsQFLd1PHrGYVbrU1EZjC",
    "digest": "6c77597eb91ab936c1cef4cf19eba1b3",
    "sector_size": 536870912
  },
  "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.vk": {
    "cid": "QmWionkqH2B6TXivzBSQeSyBxojaiAFbzhjtwYRrfwd8nH",
    "digest": "065179da19fbe515507267677f02823e",
    "sector_size": 536870912
  },
  "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.params": {
    "cid": "QmPXAPPuQtuQz7Zz3MHMAMEtsYwqM1o9H1csPLeiMUQwZH",
    "digest": "09e612e4eeb7a0eb95679a88404f960c",
    "sector_size": 8388608
  },
  "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.vk": {
    "cid": "QmYCuipFyvVW1GojdMrjK1JnMobXtT4zRCZs1CGxjizs99",
    "digest": "b687beb9adbd9dabe265a7e3620813e4",
    "sector_size": 8388608
  },
  "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params": {
    "cid": "QmengpM684XLQfG8754ToonszgEg2bQeAGUan5uXTHUQzJ",
    "digest": "6a388072a518cf46ebd661f5cc46900a",
    "sector_size": 34359738368
  },
  "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.vk": {
    "cid": "Qmf93EMrADXAK6CyiSfE8xx45fkMfR3uzKEPCvZC1n2kzb",
    "digest": "0c7b4aac1c40fdb7eb82bc355b41addf",
    "sector_size": 34359738368
  },
  "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.params": {
    "cid": "QmS7ye6Ri2MfFzCkcUJ7FQ6zxDKuJ6J6B8k5PN7wzSR9sX",
    "digest": "1801f8a6e1b00bceb00cc27314bb5ce3",
    "sector_size": 68719476736
  },
  "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.vk": {
    "cid": "QmehSmC6BhrgRZakPDta2ewoH9nosNzdjCqQRXsNFNUkLN",
    "digest": "a89884252c04c298d0b3c81bfd884164",
    "sector_size": 68719476736
  }
}
)json";

constexpr std::array<uint64_t, 5> kPublishedSizes = {uint64_t(1) << 11, uint64_t(1) << 23, uint64_t(1) << 29,
                                                     uint64_t(1) << 35, uint64_t(1) << 36};

struct SizeShape {
  uint64_t sector_size;
  size_t sub_arity, top_arity;  // constants.rs SectorShape2KiB .. SectorShape64GiB (base arity 8)
  size_t window_post_sectors;   // WINDOW_POST_SECTOR_COUNT
};
constexpr std::array<SizeShape, 5> kShapes = {{
    {uint64_t(1) << 11, 0, 0, 2},
    {uint64_t(1) << 23, 0, 0, 2},
    {uint64_t(1) << 29, 0, 0, 2},
    {uint64_t(1) << 35, 8, 0, 2349},
    {uint64_t(1) << 36, 8, 2, 2300},
}};

std::string known_sizes() {
  std::string s;
  for (uint64_t size : kPublishedSizes) s += (s.empty() ? "" : ", ") + std::to_string(size);
  return s;
}

const SizeShape& shape_of(uint64_t sector_size) {
  for (const SizeShape& s : kShapes) {
    if (s.sector_size == sector_size) return s;
  }
  throw std::invalid_argument("no published Filecoin parameters for sector size " + std::to_string(sector_size) +
                              " bytes (published: " + known_sizes() + ")");
}

std::string tree_display(size_t base, size_t sub, size_t top) {
  return "merkletree-poseidon_hasher-" + std::to_string(base) + "-" + std::to_string(sub) + "-" + std::to_string(top);
}

std::string to_hex(const unsigned char* p, size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (size_t i = 0; i < n; i++) {
    s[2 * i] = kHex[p[i] >> 4];
    s[2 * i + 1] = kHex[p[i] & 15];
  }
  return s;
}

bool is_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); });
}

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) {
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  }
  return r;
}

struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

ParameterId make_id(ParameterCircuit circuit, uint64_t sector_size, std::string prefix, std::string identifier) {
  ParameterId id;
  id.circuit = circuit;
  id.sector_size = sector_size;
  id.stem = parameter_file_stem(prefix, identifier);
  id.prefix = std::move(prefix);
  id.identifier = std::move(identifier);
  return id;
}

ParameterId fallback_post_id(ParameterCircuit circuit, uint64_t sector_size, size_t challenge_count,
                             size_t sector_count) {
  return make_id(circuit, sector_size, "proof-of-spacetime-fallback-" + tree_r_display(sector_size),
                 "FallbackPoSt::PublicParams{sector_size: " + std::to_string(sector_size) + ", challenge_count: " +
                     std::to_string(challenge_count) + ", sector_count: " + std::to_string(sector_count) + "}");
}

}  // namespace

std::string_view parameter_circuit_name(ParameterCircuit c) {
  switch (c) {
    case ParameterCircuit::kPoRep:
      return "PoRep";
    case ParameterCircuit::kWinningPoSt:
      return "WinningPoSt";
    case ParameterCircuit::kWindowPoSt:
      return "WindowPoSt";
    case ParameterCircuit::kEmptySectorUpdate:
      return "EmptySectorUpdate";
    case ParameterCircuit::kEmptySectorUpdatePoseidon:
      return "EmptySectorUpdatePoseidon";
  }
  return "?";
}

std::string parameter_file_stem(std::string_view prefix, std::string_view identifier) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(identifier.data(), identifier.size(), md, &len, EVP_sha256(), nullptr) != 1 || len != 32) {
    throw std::runtime_error("SHA-256 of the parameter identifier failed (OpenSSL)");
  }
  return "v" + std::to_string(kParameterCacheVersion) + "-" + std::string(prefix) + "-" + to_hex(md, len);
}

std::span<const uint64_t> published_sector_sizes() { return kPublishedSizes; }

std::string tree_r_display(uint64_t sector_size) {
  const SizeShape& s = shape_of(sector_size);
  return tree_display(8, s.sub_arity, s.top_arity);
}

std::string tree_r_display(const gadgets::PorTreeShape& shape) {
  if (shape.hasher != gadgets::TreeHasher::kPoseidon) {
    throw std::invalid_argument("tree R/C must be a Poseidon tree, got " + shape.name());
  }
  return tree_display(shape.base_arity, shape.sub_arity, shape.top_arity);
}

size_t window_post_sector_count(uint64_t sector_size) { return shape_of(sector_size).window_post_sectors; }

ParameterId porep_parameter_id(const SealProofInfo& proof) {
  // stacked/circuit/proof.rs cache_prefix: "stacked-proof-of-replication-{Tree::display()}-{G::name()}"
  // with G the tree D hasher (SHA-256); the identifier from stacked/vanilla/params.rs,
  // stacked/vanilla/graph.rs (EXP_DEGREE 8) and drgraph.rs (BASE_DEGREE 6, Poseidon).
  const std::string tree = tree_r_display(proof.tree_r);
  std::string identifier =
      "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 "
      "base_graph: drgraph::BucketGraph{size: " +
      std::to_string(proof.nodes) +
      "; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: " + std::to_string(proof.layers) +
      ", max_count: " + std::to_string(proof.challenges_per_partition) + " }, tree: " + tree + " }";
  return make_id(ParameterCircuit::kPoRep, proof.sector_size, "stacked-proof-of-replication-" + tree + "-sha256_hasher",
                 std::move(identifier));
}

ParameterId porep_parameter_id(uint64_t sector_size) {
  shape_of(sector_size);  // throws for an unpublished size
  for (const SealProofInfo& p : seal_proofs()) {
    if (p.sector_size == sector_size) return porep_parameter_id(p);
  }
  throw std::invalid_argument("no registered seal proof of sector size " + std::to_string(sector_size));
}

ParameterId winning_post_parameter_id(uint64_t sector_size) {
  // parameters.rs winning_post_setup_params: the circuit proves challenge_count / sector_count
  // = 66 sectors with 66 / 66 = 1 challenge each.
  const size_t sectors = kWinningPostChallengeCount / kWinningPostSectorCount;
  return fallback_post_id(ParameterCircuit::kWinningPoSt, sector_size, kWinningPostChallengeCount / sectors, sectors);
}

ParameterId window_post_parameter_id(uint64_t sector_size) {
  return fallback_post_id(ParameterCircuit::kWindowPoSt, sector_size, kWindowPostChallengeCount,
                          window_post_sector_count(sector_size));
}

ParameterId empty_sector_update_parameter_id(uint64_t sector_size, bool poseidon) {
  const std::string tree = tree_r_display(sector_size);
  return make_id(poseidon ? ParameterCircuit::kEmptySectorUpdatePoseidon : ParameterCircuit::kEmptySectorUpdate,
                 sector_size, (poseidon ? "empty-sector-update-poseidon-" : "empty-sector-update-") + tree,
                 "empty_sector_update::PublicParams{ sector_nodes: " + std::to_string(sector_size / 32) + " }");
}

ParameterId parameter_id(ParameterCircuit circuit, uint64_t sector_size) {
  switch (circuit) {
    case ParameterCircuit::kPoRep:
      return porep_parameter_id(sector_size);
    case ParameterCircuit::kWinningPoSt:
      return winning_post_parameter_id(sector_size);
    case ParameterCircuit::kWindowPoSt:
      return window_post_parameter_id(sector_size);
    case ParameterCircuit::kEmptySectorUpdate:
      return empty_sector_update_parameter_id(sector_size, false);
    case ParameterCircuit::kEmptySectorUpdatePoseidon:
      return empty_sector_update_parameter_id(sector_size, true);
  }
  throw std::invalid_argument("unknown parameter circuit " + std::to_string(int(circuit)));
}

std::optional<std::filesystem::path> find_parameter_file(std::string_view name, const std::filesystem::path& dir) {
  const std::filesystem::path n(name);
  if (name.empty() || name == "." || name == ".." || n.has_parent_path() || n.has_root_path()) {
    throw std::invalid_argument("parameter file name \"" + std::string(name) + "\" must be a plain file name");
  }
  const std::filesystem::path p = dir / n;
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(p, ec);
  if (st.type() == std::filesystem::file_type::not_found) return std::nullopt;
  if (ec) throw std::runtime_error("cannot stat parameter file " + p.string() + ": " + ec.message());
  if (!std::filesystem::is_regular_file(st)) {
    throw std::runtime_error("parameter file " + p.string() + " exists but is not a regular file");
  }
  return p;
}

ParameterManifest parse_parameter_manifest(std::string_view json_text, std::string_view source) {
  const std::string src(source);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(src + ": invalid JSON: " + e.what());
  }
  if (!j.is_object()) throw std::runtime_error(src + ": expected an object of file name -> entry");
  ParameterManifest m;
  for (const auto& [name, v] : j.items()) {
    const std::string where = src + ": entry \"" + name + "\"";
    if (!v.is_object()) throw std::runtime_error(where + " is not an object");
    auto field = [&, &v = v](const char* key) -> const nlohmann::json& {  // clang < 16: no captured bindings
      auto it = v.find(key);
      if (it == v.end()) throw std::runtime_error(where + " has no \"" + key + "\"");
      return *it;
    };
    const nlohmann::json& cid = field("cid");
    const nlohmann::json& digest = field("digest");
    const nlohmann::json& size = field("sector_size");
    if (!cid.is_string()) throw std::runtime_error(where + ": \"cid\" is not a string");
    if (!digest.is_string()) throw std::runtime_error(where + ": \"digest\" is not a string");
    if (!size.is_number_unsigned()) throw std::runtime_error(where + ": \"sector_size\" is not an unsigned integer");
    ParameterFileEntry e{cid.get<std::string>(), digest.get<std::string>(), size.get<uint64_t>()};
    if (e.digest.size() != kParameterDigestHexChars || !is_hex(e.digest)) {
      throw std::runtime_error(where + ": \"digest\" \"" + e.digest + "\" is not " +
                               std::to_string(kParameterDigestHexChars) + " hex characters");
    }
    m.emplace(name, std::move(e));
  }
  return m;
}

ParameterManifest read_parameter_manifest(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open parameter manifest " + path.string() + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw std::runtime_error("cannot read parameter manifest " + path.string());
  return parse_parameter_manifest(text.str(), path.string());
}

const ParameterManifest& published_parameter_manifest() {
  static const ParameterManifest m = parse_parameter_manifest(kPublishedParametersJson, "built-in parameters.json");
  return m;
}

std::string parameter_digest(const std::filesystem::path& path, const DigestProgress& progress) {
  OwnedFd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) throw std::runtime_error("cannot open parameter file " + path.string() + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) {
    throw std::runtime_error("cannot stat parameter file " + path.string() + ": " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) throw std::runtime_error("parameter file " + path.string() + " is not a regular file");
  const uint64_t total = uint64_t(st.st_size);
  (void)::posix_fadvise(f.fd, 0, 0, POSIX_FADV_SEQUENTIAL);

  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  // BLAKE2b with default parameters: no key, 64-byte output (blake2b_simd State::new()).
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_blake2b512(), nullptr) != 1) {
    throw std::runtime_error("BLAKE2b-512 is not available (OpenSSL)");
  }
  constexpr size_t kChunk = size_t(8) << 20;
  std::vector<unsigned char> buf(kChunk);
  uint64_t done = 0;
  for (;;) {
    const ssize_t n = ::read(f.fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("cannot read parameter file " + path.string() + " at byte " + std::to_string(done) +
                               ": " + std::strerror(errno));
    }
    if (n == 0) break;
    if (EVP_DigestUpdate(ctx.get(), buf.data(), size_t(n)) != 1) {
      throw std::runtime_error("BLAKE2b-512 update failed (OpenSSL) hashing " + path.string());
    }
    done += uint64_t(n);
    if (progress && done < total) progress(done, total);
  }
  if (progress) progress(done, total);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx.get(), md, &len) != 1 || len != 64) {
    throw std::runtime_error("BLAKE2b-512 final failed (OpenSSL) hashing " + path.string());
  }
  return to_hex(md, len).substr(0, kParameterDigestHexChars);
}

ParameterDigestMismatch::ParameterDigestMismatch(std::filesystem::path path, std::string expected, std::string found)
    : std::runtime_error("parameter file " + path.string() + " has digest " + found + ", expected " + expected +
                         " (first " + std::to_string(kParameterDigestHexChars) +
                         " hex characters of BLAKE2b-512): the file is corrupt or incomplete; fetch it again"),
      path_(std::move(path)),
      expected_(std::move(expected)),
      found_(std::move(found)) {}

void verify_parameter_digest(const std::filesystem::path& path, std::string_view expected,
                             const DigestProgress& progress) {
  if (expected.size() != kParameterDigestHexChars || !is_hex(expected)) {
    throw std::invalid_argument("expected digest \"" + std::string(expected) + "\" for " + path.string() + " is not " +
                                std::to_string(kParameterDigestHexChars) + " hex characters");
  }
  const std::string want = lower(expected);
  std::string found = parameter_digest(path, progress);
  if (found != want) throw ParameterDigestMismatch(path, want, std::move(found));
}

const ParameterFileEntry& verify_parameter_file(const std::filesystem::path& path, const ParameterManifest& manifest,
                                                const DigestProgress& progress) {
  const std::string name = path.filename().string();
  auto it = manifest.find(name);
  if (it == manifest.end()) {
    throw std::runtime_error("parameter file " + path.string() + ": \"" + name +
                             "\" is not listed in the parameter manifest (" + std::to_string(manifest.size()) +
                             " entries)");
  }
  verify_parameter_digest(path, it->second.digest, progress);
  return it->second;
}

}  // namespace cuzk::filecoin

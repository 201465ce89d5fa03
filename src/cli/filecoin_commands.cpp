#include "cli/filecoin_commands.hpp"

#include <iostream>

#include "cli/client.hpp"
#include "cli/exit_codes.hpp"
#include "cli/local_verification.hpp"

namespace cuzk::cli {

FilecoinCommands::FilecoinCommands(CLI::App& app) {
  CLI::App* prove = app.get_subcommand("prove");
  prove_porep_ = prove->add_subcommand(
      "porep", "Prove a Filecoin PoRep Commit2 from a Commit1 output (sent as Curio sends it); Ctrl-C cancels it");
  prove_porep_->add_option("--c1", args_.c1, "The Commit1 output (SealCommitPhase1Output JSON)")->required();
  prove_porep_->add_option("--miner", args_.miner, "The miner: t01000, f01000 or 1000")->required();
  prove_porep_->add_option("--sector", args_.sector, "The sector number")->required();
  prove_porep_->add_option("--registered-proof", args_.registered_proof,
                           "RegisteredSealProof name or id (default: the Commit1 output's)");
  prove_porep_->add_option("--request-id", args_.request_id, "Job id (default: the daemon picks one)");
  prove_porep_->add_option("--priority", args_.priority,
                           "low, normal, high or critical, or -999..999 within normal (default normal)");
  prove_porep_->add_option("--out", args_.out,
                           "Write the proof bytes (192 per partition, as seal_commit_phase2 returns them) here");
  prove_porep_->add_flag("--json", json_, "Print the result as JSON");

  // The options the PoSt commands share.
  auto post_options = [this](CLI::App* cmd, bool winning) {
    cmd->add_option("--vanilla", post_.vanilla,
                    winning ? "The challenged sector's vanilla proof: a bincode FallbackPoStSectorProof (its 66 "
                              "openings) as filecoin-ffi's GenerateSingleVanillaProof writes it"
                            : "A sector's vanilla proof: a bincode FallbackPoStSectorProof as filecoin-ffi's "
                              "GenerateSingleVanillaProof writes it (cuzk-bench post-vanilla makes one); repeat it "
                              "for each sector of the partition")
        ->required()
        ->type_name("FILE");
    cmd->add_option("--registered-proof", post_.registered_proof,
                    winning ? "RegisteredPoStProof name or id, e.g. StackedDrgWinning32GiBV1 or 3"
                            : "RegisteredPoStProof name or id, e.g. StackedDrgWindow32GiBV1_2 or 13")
        ->required();
    cmd->add_option("--miner", post_.miner, "The miner: t01000, f01000 or 1000")->required();
    cmd->add_option("--randomness", post_.randomness,
                    "The challenge randomness the vanilla proofs were made with: 32 bytes as 64 hex digits")
        ->required();
    if (!winning) {
      cmd->add_option("--partition", post_.partition,
                      "The partition's index in the deadline (the vanilla proofs' challenges depend on it)")
          ->required();
    }
    cmd->add_option("--request-id", post_.request_id, "Job id (default: the daemon picks one)");
    cmd->add_option("--priority", post_.priority,
                    winning ? "low, normal, high or critical, or -999..999 within critical (default critical, as "
                              "Curio sends WinningPoSt)"
                            : "low, normal, high or critical, or -999..999 within high (default high, as Curio sends "
                              "WindowPoSt)");
    cmd->add_option("--out", post_.out, "Write the proof bytes (192) here");
    cmd->add_flag("--json", json_, "Print the result as JSON");
  };
  prove_window_post_ = prove->add_subcommand(
      "window-post",
      "Prove one WindowPoSt partition from its sectors' vanilla proofs (sent as Curio sends them); Ctrl-C cancels it");
  post_options(prove_window_post_, false);
  prove_winning_post_ = prove->add_subcommand(
      "winning-post",
      "Prove a WinningPoSt from the challenged sector's vanilla proof (sent as Curio sends it); Ctrl-C cancels it");
  post_options(prove_winning_post_, true);

  prove_snap_ = prove->add_subcommand(
      "snap",
      "Prove a SnapDeals update (EmptySectorUpdate) from its partitions' vanilla proofs (sent as Curio sends them); "
      "Ctrl-C cancels it");
  prove_snap_
      ->add_option("--vanilla", snap_.vanilla,
                   "The update's vanilla proofs: a bincode PartitionProof per partition, in partition order (repeat "
                   "the option; 1 at 2 KiB, 4 at 8 MiB, 16 from 512 MiB), or Curio's snap-vproof.json (all of them, "
                   "as GenerateUpdateVanillaProofs returns them)")
      ->required()
      ->type_name("FILE");
  prove_snap_
      ->add_option("--registered-proof", snap_.registered_proof,
                   "RegisteredUpdateProof name or id, e.g. StackedDrg32GiBV1 or 3")
      ->required();
  prove_snap_->add_option("--miner", snap_.miner, "The miner: t01000, f01000 or 1000")->required();
  prove_snap_->add_option("--sector", snap_.sector, "The sector number")->required();
  prove_snap_
      ->add_option("--comm-r-old", snap_.comm_r_old,
                   "The sector key's CommR (the replica before the update): 64 hex digits of its 32 raw bytes, or "
                   "its CID (bagboea4b5abc...)")
      ->required();
  prove_snap_
      ->add_option("--comm-r-new", snap_.comm_r_new,
                   "The updated replica's CommR: 64 hex digits of its 32 raw bytes, or its CID (bagboea4b5abc...)")
      ->required();
  prove_snap_
      ->add_option("--comm-d-new", snap_.comm_d_new,
                   "The new data's CommD: 64 hex digits of its 32 raw bytes, or its CID (baga6ea4seaq...)")
      ->required();
  prove_snap_->add_option("--request-id", snap_.request_id, "Job id (default: the daemon picks one)");
  prove_snap_->add_option("--priority", snap_.priority,
                          "low, normal, high or critical, or -999..999 within normal (default normal)");
  prove_snap_->add_option("--out", snap_.out, "Write the proof bytes (192 per partition, concatenated) here");
  prove_snap_->add_flag("--json", json_, "Print the result as JSON");

  CLI::App* verify = app.add_subcommand("verify", "Check a proof locally (no daemon needed)");
  verify_ = verify;
  // Either a subcommand (porep) or --snarkjs.
  verify->require_subcommand(0, 1);
  verify
      ->add_option("--snarkjs", snarkjs_files_,
                   "Check a snarkjs Groth16 proof (bls12381): VK PUBLIC PROOF, i.e. verification_key.json, "
                   "public.json and proof.json")
      ->expected(3)
      ->type_name("VK PUBLIC PROOF");
  verify->add_flag("--json", json_, "Print the result as JSON");
  verify_porep_ = verify->add_subcommand("porep", "Check a PoRep proof as Filecoin's verify_seal does");
  verify_porep_->add_option("--c1", args_.c1, "The Commit1 output the proof was made from")->required();
  verify_porep_->add_option("--miner", args_.miner, "The miner: t01000, f01000 or 1000")->required();
  verify_porep_->add_option("--sector", args_.sector, "The sector number")->required();
  verify_porep_->add_option("--proof", args_.proof, "The proof bytes (192 per partition)")->required();
  CLI::Option* vk = verify_porep_->add_option("--vk", args_.vk, "The verifying key (.vk file)");
  verify_porep_
      ->add_option("--param-cache", args_.param_cache,
                   "Directory of Filecoin's published parameter files (.vk, else .params), searched first; then "
                   "$FIL_PROOFS_PARAMETER_CACHE, then /var/tmp/filecoin-proof-parameters (the daemon's "
                   "srs.param_cache search)")
      ->excludes(vk);
  verify_porep_
      ->add_option("--param-cache-dir", args_.param_cache_dir,
                   "cuzk's own cache (the daemon's engine.param_cache_dir): its TEST parameters are used when no "
                   "published file is found; such proofs verify against their own key only, never on chain")
      ->excludes(vk);
  verify_porep_->add_option("--registered-proof", args_.registered_proof,
                            "RegisteredSealProof name or id (checked against the Commit1 output's)");
  verify_porep_->add_flag("--json", json_, "Print the result as JSON");
}

std::optional<int> FilecoinCommands::run(const ClientOptions& options) const {
  if (prove_porep_->parsed()) {
    ClientOptions o = options;
    o.json = o.json || json_;
    install_interrupt_handler();
    return Client(o).prove_porep(args_);
  }
  if (prove_window_post_->parsed() || prove_winning_post_->parsed() || prove_snap_->parsed()) {
    ClientOptions o = options;
    o.json = o.json || json_;
    install_interrupt_handler();
    Client client(o);
    if (prove_snap_->parsed()) return client.prove_snap(snap_);
    return client.prove_post(post_, prove_winning_post_->parsed());
  }
  if (verify_porep_->parsed()) return verify_porep(args_, json_ || options.json);
  if (verify_->parsed()) {
    if (snarkjs_files_.size() != 3) {
      std::cerr << "cuzk: verify needs a subcommand (porep) or --snarkjs VK PUBLIC PROOF\n";
      return kUsage;
    }
    return verify_snarkjs(snarkjs_files_[0], snarkjs_files_[1], snarkjs_files_[2], json_ || options.json);
  }
  return std::nullopt;
}

}  // namespace cuzk::cli

#!/usr/bin/env python3
"""Curio's client against a real cuzk daemon, started as Curio starts its own.

The daemon is `cuzk --config cuzk.example.toml`, Curio's example configuration as it ships
(tests/data/curio), with the listen address and the directories given as flags (and TEST
parameters allowed); the same file entirely unchanged starts too, on 0.0.0.0:9820, with a warning.
A gRPC client generated at test time from proto/cuzk/v1/proving.proto (python3-grpcio and
python3-grpc-tools; nothing generated is kept) talks to the daemon as Curio does
(curio lib/cuzk/client.go, lib/ffi/cuzk_funcs.go):

- GetStatus answers with the fields Curio reads for back-pressure (queues[].pending +
  in_progress) and shows (gpus, loaded_srs, totals, uptime);
- a PoRep Commit2 of the real 8 MiB Commit1 output (miner 1006, sector 1498) is sent through
  Prove in Curio's envelope, built exactly as Go's json.Marshal writes
  {SectorNum int64, Phase1Out []byte, SectorSize uint64}; the answer is COMPLETED with a 192-byte
  proof and Curio's timings, and `cuzk verify porep` accepts the proof (and refuses it with a
  flipped byte);
- under that PoRep's request id at once: the same request again (it attaches: one job, the same
  proof) and another Commit1 output (a generated 2 KiB sector, re-marshalled as Curio's PSProve
  does with Go's encoding/json: its keys in Go's order, SectorSize 0), which gets a job of its own,
  "<id>.2", and its own proof that verifies (cuzk-bench makes the sector; skipped without it);
- `cuzk prove porep` sends the same Commit1 output and gets a proof that verifies too;
- a WINNING_POST and a SNAP_DEALS_UPDATE with malformed vanilla proofs get INVALID_ARGUMENT naming
  them.

The daemon runs on the CPU backend with TEST parameters of cuzk's own setup allowed, cached in
--params (reused between runs: the 8 MiB setup takes minutes on 2 cores). Exit codes: 0 passed,
1 failed, 77 skipped (no test data).
"""

import argparse
import base64
import collections
import json
import socket
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

SKIP = 77
C1_NAME = "filecoin/porep/c1-8MiB-StackedDrg8MiBV1_1.json"
MINER, SECTOR = 1006, 1498
SECTOR_SIZE = 8 << 20
STACKED_DRG_8MIB_V1_1 = 6  # RegisteredSealProof id
STACKED_DRG_2KIB_V1_1 = 5
OTHER_SECTOR = 7  # the generated 2 KiB sector
MAX_MESSAGE = 256 << 20  # Curio's client: grpc.MaxCallRecvMsgSize / MaxCallSendMsgSize


class Failure(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failure(what)
    print("ok   " + what, flush=True)


def curio_envelope(c1_json: bytes, sector_number: int, sector_size: int) -> bytes:
    """curio lib/ffi/cuzk_funcs.go wrapC1Output: Go's json.Marshal of c1OutputWrapper (fields in
    declaration order, compact, []byte as standard base64 with padding; base64 needs no escaping)."""
    return json.dumps(
        {
            "SectorNum": int(sector_number),
            "Phase1Out": base64.b64encode(c1_json).decode("ascii"),
            "SectorSize": int(sector_size),
        },
        separators=(",", ":"),
    ).encode("ascii")


def generate_stubs(proto_dir: str, out_dir: str):
    # Debian's grpc_tools bundles an older protoc; the pure-Python protobuf runtime reads what it
    # generates whatever the installed runtime's default backend is.
    os.environ.setdefault("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", "python")
    try:
        from grpc_tools import protoc  # noqa: F401
        import grpc  # noqa: F401
    except ImportError as e:
        raise Failure(f"{e}: install python3-grpcio and python3-grpc-tools (scripts/install-deps.sh)")
    rc = subprocess.call(
        [sys.executable, "-m", "grpc_tools.protoc", "-I", proto_dir, "--python_out=" + out_dir,
         "--grpc_python_out=" + out_dir, "cuzk/v1/proving.proto"])
    if rc != 0:
        raise Failure(f"grpc_tools.protoc failed ({rc}) on {proto_dir}/cuzk/v1/proving.proto")
    sys.path.insert(0, out_dir)
    from cuzk.v1 import proving_pb2, proving_pb2_grpc
    return proving_pb2, proving_pb2_grpc


def go_remarshal(c1_json: bytes) -> bytes:
    """Curio's PSProve: json.Marshal of proof.Commit1OutRaw, the same values with the seven
    top-level keys in Go's field order (nested objects keep Rust's order), compact."""
    rust = json.loads(c1_json, object_pairs_hook=collections.OrderedDict)
    go_order = ["comm_d", "comm_r", "registered_proof", "replica_id", "seed", "ticket", "vanilla_proofs"]
    go = collections.OrderedDict((k, rust[k]) for k in go_order)
    return json.dumps(go, separators=(",", ":")).encode("ascii")


class Daemon:
    def __init__(self, binary, config, work, params, extra):
        self.socket = os.path.join(work, "cuzk.sock")
        self.ready = os.path.join(work, "ready")
        self.log_path = os.path.join(work, "daemon.log")
        argv = [binary, "--config", config, "--listen", "unix:" + self.socket, "--status-listen", "127.0.0.1:0",
                "--ready-file", self.ready, "--param-cache-dir", params, "--param-cache", params,
                "--spool-dir", os.path.join(work, "spool"), "--allow-test-parameters"] + extra
        print("start " + " ".join(argv), flush=True)
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 120
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise Failure(f"cuzk-daemon exited with {self.proc.returncode} at start")
            if os.path.exists(self.ready):
                return
            time.sleep(0.05)
        raise Failure("cuzk-daemon did not serve within 120 s")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                return None
        return self.proc.returncode

    def tail(self, lines=60):
        try:
            with open(self.log_path, "rb") as f:
                return b"".join(f.readlines()[-lines:]).decode("utf-8", "replace")
        except OSError:
            return ""


def unchanged_config_starts(args, work):
    """Curio's example file as it ships (listen = "0.0.0.0:9820", plain TCP): the daemon starts and
    warns (its directories given as flags, so that the test writes nothing outside its own)."""
    with socket.socket() as s:
        if s.connect_ex(("127.0.0.1", 9820)) == 0:
            print("SKIP: the unchanged file (something already listens on port 9820)", flush=True)
            return
    log_path = os.path.join(work, "unchanged.log")
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([args.client, "--config", args.curio_config, "--spool-dir",
                                 os.path.join(work, "spool-unchanged"), "--param-cache-dir",
                                 os.path.join(work, "params-unchanged")], stdout=log, stderr=subprocess.STDOUT)
    try:
        text = ""
        deadline = time.time() + 120
        while time.time() < deadline and proc.poll() is None and "cuzk-daemon listening on" not in text:
            time.sleep(0.1)
            with open(log_path, "rb") as f:
                text = f.read().decode("utf-8", "replace")
        check(proc.poll() is None and "cuzk-daemon listening on 0.0.0.0:9820" in text,
              "Curio's example file, unchanged, starts the daemon on 0.0.0.0:9820")
        check("without TLS or client authentication" in text and "tls_client_ca" in text,
              "and warns that the plain TCP listener is open to anyone who reaches it")
        proc.send_signal(signal.SIGTERM)
        check(proc.wait(60) == 0, "and stops cleanly on SIGTERM")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def run(args, work):
    import_dir = os.path.join(work, "gen")
    os.makedirs(import_dir)
    pb, pb_grpc = generate_stubs(args.proto, import_dir)
    import grpc

    testdata = os.environ.get("CUZK_TESTDATA") or args.testdata
    c1_path = os.path.join(testdata, C1_NAME) if testdata else ""
    if not c1_path or not os.path.isfile(c1_path):
        print(f"SKIP: no Commit1 test data ({c1_path or 'set CUZK_TESTDATA'})", flush=True)
        return SKIP
    with open(c1_path, "rb") as f:
        c1 = f.read()

    os.makedirs(args.params, exist_ok=True)
    extra = os.environ.get("CUZK_INTEROP_DAEMON_ARGS", "").split()
    # A second Commit1 output, re-marshalled as PSProve does, for another request under one id.
    other = None
    if args.bench:
        other_path = os.path.join(work, "c1-2KiB.json")
        rc = subprocess.call([args.bench, "c1", "--proof", "StackedDrg2KiBV1_1", "--out", other_path, "--miner",
                              str(MINER), "--sector", str(OTHER_SECTOR)], stdout=subprocess.DEVNULL)
        if rc != 0:
            raise Failure(f"cuzk-bench c1 failed ({rc})")
        with open(other_path, "rb") as f:
            other_go = go_remarshal(f.read())
        go_path = os.path.join(work, "c1-2KiB-go.json")
        with open(go_path, "wb") as f:
            f.write(other_go)
        other = (other_go, go_path)
    else:
        print("SKIP: another request under one id (no --bench to make a 2 KiB sector)", flush=True)
    daemon = Daemon(args.client, args.curio_config, work, args.params, extra)
    try:
        channel = grpc.insecure_channel(
            "unix:" + daemon.socket,
            options=[("grpc.max_send_message_length", MAX_MESSAGE),
                     ("grpc.max_receive_message_length", MAX_MESSAGE)])
        stub = pb_grpc.ProvingEngineStub(channel)

        # GetStatus as Curio's HasCapacity reads it.
        st = stub.GetStatus(pb.GetStatusRequest(), timeout=5)
        check(len(st.gpus) >= 1 and st.gpus[0].name, f"GetStatus lists the device(s): {[g.name for g in st.gpus]}")
        check(sum(q.pending + q.in_progress for q in st.queues) == 0, "GetStatus: nothing queued at start")

        # A WinningPoSt as Curio's WinningPoStCuzk sends it, with bytes that are no vanilla proof:
        # refused when it arrives, naming the proof.
        winning = pb.SubmitProofRequest(
            request_id="winpost-1006-0102030405060708", proof_kind=pb.WINNING_POST, sector_size=SECTOR_SIZE,
            registered_proof=1, priority=pb.CRITICAL, vanilla_proofs=[b"\x00" * 64], miner_id=MINER,
            randomness=bytes(range(32)))
        try:
            stub.Prove(pb.ProveRequest(submit=winning), timeout=30)
            raise Failure("a malformed WINNING_POST was accepted")
        except grpc.RpcError as e:
            check(e.code() == grpc.StatusCode.INVALID_ARGUMENT and "vanilla_proofs[0]" in (e.details() or ""),
                  f"WINNING_POST, malformed: {e.code().name}: {e.details()}")

        # A SnapDeals update as Curio's ProveUpdateCuzk sends it (RegisteredUpdateProof 1, 8 MiB: four
        # partitions; raw 32-byte commitments), with bytes that are no vanilla proof: refused when it
        # arrives, naming the proof.
        snap = pb.SubmitProofRequest(
            request_id="snap-1006-1498", proof_kind=pb.SNAP_DEALS_UPDATE, sector_size=SECTOR_SIZE,
            registered_proof=1, priority=pb.NORMAL, vanilla_proofs=[b"\x00" * 64] * 4, miner_id=MINER,
            sector_number=SECTOR, comm_r_old=b"\x01" * 32, comm_r_new=b"\x02" * 32, comm_d_new=b"\x03" * 32)
        try:
            stub.Prove(pb.ProveRequest(submit=snap), timeout=30)
            raise Failure("a malformed SNAP_DEALS_UPDATE was accepted")
        except grpc.RpcError as e:
            check(e.code() == grpc.StatusCode.INVALID_ARGUMENT and "vanilla_proofs[0]" in (e.details() or ""),
                  f"SNAP_DEALS_UPDATE, malformed: {e.code().name}: {e.details()}")

        # The PoRep Commit2, exactly as Curio's PoRepSnarkCuzk sends it, through Prove.
        envelope = curio_envelope(c1, SECTOR, SECTOR_SIZE)
        porep = pb.SubmitProofRequest(
            request_id=f"porep-{MINER}-{SECTOR}", proof_kind=pb.POREP_SEAL_COMMIT, sector_size=SECTOR_SIZE,
            registered_proof=STACKED_DRG_8MIB_V1_1, priority=pb.NORMAL, vanilla_proof=envelope,
            sector_number=SECTOR, miner_id=MINER)
        # At once under Curio's request id: the same request twice (one job, one proof) and, when
        # there is one, another Commit1 output in PSProve's form (a job of its own, "<id>.2").
        calls = [porep, porep]
        if other:
            calls.append(pb.SubmitProofRequest(
                request_id=porep.request_id, proof_kind=pb.POREP_SEAL_COMMIT, sector_size=0,
                registered_proof=STACKED_DRG_2KIB_V1_1, priority=pb.NORMAL,
                vanilla_proof=curio_envelope(other[0], OTHER_SECTOR, 0), sector_number=OTHER_SECTOR, miner_id=MINER))
        answers = [{} for _ in calls]

        def prove(i):
            try:
                answers[i]["response"] = stub.Prove(pb.ProveRequest(submit=calls[i]), timeout=3600)
            except grpc.RpcError as e:
                answers[i]["error"] = e

        start = time.time()
        threads = [threading.Thread(target=prove, args=(i,)) for i in range(len(calls))]
        for t in threads:
            t.start()
        # While they run, Curio's back-pressure count sees them: one job per request.
        seen = 0
        while any(t.is_alive() for t in threads):
            st = stub.GetStatus(pb.GetStatusRequest(), timeout=5)
            seen = max(seen, sum(q.pending + q.in_progress for q in st.queues if q.proof_kind == "porep-c2"))
            time.sleep(0.2)
        for t in threads:
            t.join()
        check(seen == len(calls) - 1,
              f"GetStatus: porep-c2 pending + in_progress reached {seen} while {len(calls) - 1} jobs ran")
        for a in answers:
            if "error" in a:
                raise Failure(f"Prove: {a['error'].code().name}: {a['error'].details()}")
        result = answers[0]["response"].result
        print(f"     Prove took {time.time() - start:.1f} s: queue {result.queue_wait_ms} ms, srs {result.srs_load_ms} "
              f"ms, synthesis {result.synthesis_ms} ms, gpu {result.gpu_compute_ms} ms, total {result.total_ms} ms",
              flush=True)
        check(result.status == pb.AwaitProofResponse.COMPLETED,
              f"PoRep status {pb.AwaitProofResponse.Status.Name(result.status)} {result.error_message}")
        check(len(result.proof) == 192, f"PoRep proof is 192 bytes ({len(result.proof)})")
        # The first request to arrive gets the id itself, the other "<id>.2" (threads: either order).
        ids = {porep.request_id, porep.request_id + ".2"} if other else {porep.request_id}
        check(result.job_id in ids, f"the job id is Curio's request id: {result.job_id}")
        twin = answers[1]["response"].result
        check(twin.job_id == result.job_id and twin.proof == result.proof,
              "the same request again attached to the same job and got the same proof")
        check(result.total_ms > 0 and result.synthesis_ms > 0 and result.total_ms >= result.synthesis_ms,
              "Curio's timings are filled (ms)")
        check(not result.error_message, "no error message on success")
        expected_completed = 1
        if other:
            own = answers[2]["response"].result
            check(own.status == pb.AwaitProofResponse.COMPLETED and len(own.proof) == 192,
                  f"another request under the id: {pb.AwaitProofResponse.Status.Name(own.status)} {own.error_message}")
            check(own.job_id in ids and own.job_id != result.job_id, f"it got a job of its own: {own.job_id}")
            own_path = os.path.join(work, "own.bin")
            with open(own_path, "wb") as f:
                f.write(own.proof)
            rc = subprocess.call([args.client, "verify", "porep", "--c1", other[1], "--miner", f"t0{MINER}",
                                  "--sector", str(OTHER_SECTOR), "--param-cache-dir", args.params, "--proof", own_path])
            check(rc == 0, f"its own proof verifies (the PSProve-style Commit1 output; exit {rc})")
            expected_completed = 2

        proof_path = os.path.join(work, "proof.bin")
        with open(proof_path, "wb") as f:
            f.write(result.proof)
        verify = [args.client, "verify", "porep", "--c1", c1_path, "--miner", f"t0{MINER}", "--sector", str(SECTOR),
                  "--param-cache-dir", args.params]
        rc = subprocess.call(verify + ["--proof", proof_path])
        check(rc == 0, f"cuzk verify porep accepts the proof (exit {rc})")
        bad = bytearray(result.proof)
        bad[100] ^= 0x01
        bad_path = os.path.join(work, "bad.bin")
        with open(bad_path, "wb") as f:
            f.write(bytes(bad))
        rc = subprocess.call(verify + ["--proof", bad_path])
        check(rc == 12, f"cuzk verify porep refuses a flipped byte (exit {rc}, 12 expected)")

        st = stub.GetStatus(pb.GetStatusRequest(), timeout=5)
        check(st.total_proofs_completed == expected_completed,
              f"GetStatus: total_proofs_completed {st.total_proofs_completed}")
        check(any(s.circuit_id == "porep-8m" and s.size_bytes > 0 for s in st.loaded_srs),
              f"GetStatus: loaded_srs {[(s.circuit_id, s.size_bytes) for s in st.loaded_srs]} has porep-8m")
        check(st.uptime_seconds >= 0 and sum(q.pending + q.in_progress for q in st.queues) == 0,
              "GetStatus: nothing in flight afterwards")

        # The same through the client (it wraps the Commit1 output as Curio does).
        proof2 = os.path.join(work, "proof2.bin")
        rc = subprocess.call([args.client, "--addr", "unix:" + daemon.socket, "--progress", "0", "prove", "porep",
                              "--c1", c1_path, "--miner", f"t0{MINER}", "--sector", str(SECTOR), "--out", proof2])
        check(rc == 0 and os.path.getsize(proof2) == 192, f"cuzk prove porep writes a 192-byte proof (exit {rc})")
        rc = subprocess.call(verify + ["--proof", proof2])
        check(rc == 0, f"cuzk verify porep accepts the client's proof (exit {rc})")

        channel.close()
        rc = daemon.stop()
        check(rc == 0, f"cuzk-daemon stops cleanly on SIGTERM (exit {rc})")
        unchanged_config_starts(args, work)
        return 0
    except BaseException:
        print("--- daemon log (last lines) ---\n" + daemon.tail() + "---", flush=True)
        raise
    finally:
        daemon.stop()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--client", required=True, help="cuzk binary (the daemon too, as Curio starts it)")
    p.add_argument("--curio-config", required=True, help="Curio's cuzk.example.toml")
    p.add_argument("--bench", default="", help="cuzk-bench binary (makes a 2 KiB sector's Commit1 output)")
    p.add_argument("--proto", required=True, help="the proto directory (holds cuzk/v1/proving.proto)")
    p.add_argument("--params", required=True, help="parameter cache directory, kept between runs")
    p.add_argument("--testdata", default="", help="../shared/testdata ($CUZK_TESTDATA wins)")
    args = p.parse_args()
    work = tempfile.mkdtemp(prefix="cuzk-interop-")
    try:
        rc = run(args, work)
    except Failure as e:
        print("FAIL " + str(e), flush=True)
        rc = 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(rc)


if __name__ == "__main__":
    main()

/* Replays the flows of a `slotsim run --flows` file through SimGrid's own
 * max-min network model and compares every flow's end with slotsim's.
 *
 *   replay FLOWS.jsonl [--out ENDS] [--check TOL_MS] [--cfg=NAME:VALUE...]
 *
 * --cfg options are handed to SimGrid after this program's own settings
 * (e.g. --cfg=maxmin/precision:1e-5 to see the effect of the default).
 * See README.md next to this file for what it checks and how the flows are
 * mapped onto SimGrid. Exit status: 0 ok; 1 if --check is given and some
 * flow differs by more than TOL_MS; 2 on a bad file or bad arguments.
 *
 * Built against SimGrid 3.32 (Debian's libsimgrid-dev):
 *   g++ -O2 -std=c++17 replay.cpp -o replay -lsimgrid
 */

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u.hpp>
#include <simgrid/version.h>
#include <xbt/config.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <sys/resource.h>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace sg4 = simgrid::s4u;

static constexpr double MB = 1048576.0;

/* ------------------------------------------------------------------ errors */

struct BadFile {
  std::string msg;
};

[[noreturn]] static void bad(const std::string& msg)
{
  throw BadFile{msg};
}

/* ------------------------------------------------------------------ parser */

/* A small JSON reader for the flat objects of a flows file: one object per
 * line, values that are strings, numbers, null, arrays of strings (and, for
 * the first line, one nested object of numbers). Keys may come in any order;
 * unknown keys are skipped. */
struct Cursor {
  const char* p;
  const char* end;

  void ws()
  {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
      ++p;
  }
  bool eat(char c)
  {
    ws();
    if (p < end && *p == c) {
      ++p;
      return true;
    }
    return false;
  }
  void expect(char c, const char* what)
  {
    if (not eat(c))
      bad(std::string("expected ") + what);
  }
  /* A string; escapes are decoded into `tmp` only when present. */
  std::string_view str(std::string& tmp)
  {
    ws();
    if (p >= end || *p != '"')
      bad("expected a string");
    ++p;
    const char* s = p;
    while (p < end && *p != '"' && *p != '\\')
      ++p;
    if (p < end && *p == '"')
      return std::string_view(s, (p++) - s);
    tmp.assign(s, p - s);
    while (p < end && *p != '"') {
      if (*p == '\\') {
        if (++p >= end)
          break;
        switch (*p) {
          case 'n': tmp += '\n'; break;
          case 't': tmp += '\t'; break;
          case 'r': tmp += '\r'; break;
          case 'b': tmp += '\b'; break;
          case 'f': tmp += '\f'; break;
          case 'u': {
            if (end - p < 5)
              bad("bad \\u escape");
            unsigned v = 0;
            std::from_chars(p + 1, p + 5, v, 16);
            p += 4;
            if (v < 0x80)
              tmp += char(v);
            else if (v < 0x800) {
              tmp += char(0xC0 | (v >> 6));
              tmp += char(0x80 | (v & 0x3F));
            } else {
              tmp += char(0xE0 | (v >> 12));
              tmp += char(0x80 | ((v >> 6) & 0x3F));
              tmp += char(0x80 | (v & 0x3F));
            }
            break;
          }
          default: tmp += *p;
        }
        ++p;
      } else
        tmp += *p++;
    }
    if (p >= end)
      bad("unterminated string");
    ++p;
    return tmp;
  }
  bool null()
  {
    ws();
    if (end - p >= 4 && std::memcmp(p, "null", 4) == 0) {
      p += 4;
      return true;
    }
    return false;
  }
  double num()
  {
    ws();
    double v;
    auto [q, ec] = std::from_chars(p, end, v);
    if (ec != std::errc() || q == p)
      bad("expected a number");
    p = q;
    return v;
  }
  /* Skips any value (for keys this program does not use). */
  void skip()
  {
    ws();
    if (p >= end)
      bad("expected a value");
    std::string tmp;
    if (*p == '"') {
      str(tmp);
    } else if (*p == '{' || *p == '[') {
      char close = (*p == '{') ? '}' : ']';
      ++p;
      if (eat(close))
        return;
      do {
        if (close == '}') {
          str(tmp);
          expect(':', "':'");
        }
        skip();
      } while (eat(','));
      expect(close, close == '}' ? "'}'" : "']'");
    } else if (null()) {
    } else if (end - p >= 4 && std::memcmp(p, "true", 4) == 0) {
      p += 4;
    } else if (end - p >= 5 && std::memcmp(p, "false", 5) == 0) {
      p += 5;
    } else
      num();
  }
};

/* ------------------------------------------------------------------- flows */

struct Flows {
  /* Resources, by dense id. */
  std::vector<std::string> res_name;
  std::vector<double> res_cap; /* MB/s */
  std::unordered_map<std::string_view, uint32_t> res_id;

  /* Distinct paths (sequences of resource ids), by dense id. */
  std::vector<std::vector<uint32_t>> paths;
  std::unordered_map<std::string, uint32_t> path_id;

  std::vector<std::string> kinds;

  /* One entry per flow, in file order. */
  std::vector<int64_t> id;
  std::vector<double> start;  /* s */
  std::vector<double> bytes;
  std::vector<double> ss_end; /* slotsim's end (s), NaN if unfinished */
  std::vector<uint32_t> path;
  std::vector<uint8_t> kind;
  std::vector<uint64_t> offset; /* of the flow's line, to print details */

  size_t size() const { return id.size(); }
};

static void parse_header(Flows& F, Cursor c)
{
  std::string tmp, tmp2;
  c.expect('{', "'{' (the first line must be {\"links\": {...}})");
  bool seen = false;
  if (not c.eat('}')) {
    do {
      std::string_view key = c.str(tmp);
      c.expect(':', "':'");
      if (key == "links") {
        seen = true;
        c.expect('{', "an object of resource capacities");
        if (not c.eat('}')) {
          do {
            std::string name(c.str(tmp2));
            c.expect(':', "':'");
            double cap = c.num();
            if (not(cap > 0) || not std::isfinite(cap))
              bad("resource " + name + " has capacity " + std::to_string(cap) + " (must be > 0)");
            F.res_name.push_back(name);
            F.res_cap.push_back(cap);
          } while (c.eat(','));
          c.expect('}', "'}' closing \"links\"");
        }
      } else
        c.skip();
    } while (c.eat(','));
    c.expect('}', "'}'");
  }
  c.ws();
  if (c.p != c.end)
    bad("trailing characters after the first object");
  if (not seen)
    bad("the first line has no \"links\" (not a --flows file?)");
  for (uint32_t i = 0; i < F.res_name.size(); i++)
    if (not F.res_id.emplace(F.res_name[i], i).second)
      bad("resource " + F.res_name[i] + " is named twice");
}

static void parse_flow(Flows& F, Cursor c, std::vector<uint32_t>& links, std::string& key)
{
  std::string tmp;
  c.expect('{', "'{'");
  bool has_id = false, has_bytes = false, has_start = false, has_end = false, has_links = false;
  int64_t id   = 0;
  double bytes = 0, start = 0, end = NAN;
  std::string kind_name = "?";
  links.clear();
  if (not c.eat('}')) {
    do {
      std::string_view k = c.str(tmp);
      c.expect(':', "':'");
      if (k == "id") {
        double v = c.num();
        if (v < 0 || v != std::floor(v))
          bad("\"id\" must be a whole number");
        id     = int64_t(v);
        has_id = true;
      } else if (k == "bytes") {
        bytes = c.num();
        if (not(bytes >= 0) || not std::isfinite(bytes))
          bad("\"bytes\" must be a number >= 0");
        has_bytes = true;
      } else if (k == "start_s") {
        start = c.num();
        if (not(start >= 0) || not std::isfinite(start))
          bad("\"start_s\" must be a number >= 0");
        has_start = true;
      } else if (k == "end_s") {
        end     = c.null() ? NAN : c.num();
        has_end = true;
      } else if (k == "kind") {
        kind_name = c.str(tmp);
      } else if (k == "links") {
        c.expect('[', "an array of resource names");
        if (not c.eat(']')) {
          do {
            std::string t;
            std::string_view s = c.str(t);
            auto it            = F.res_id.find(s);
            if (it == F.res_id.end())
              bad("unknown resource \"" + std::string(s) + "\" (not in the first line)");
            if (std::find(links.begin(), links.end(), it->second) != links.end())
              bad("the flow crosses " + std::string(s) + " twice (not supported)");
            links.push_back(it->second);
          } while (c.eat(','));
          c.expect(']', "']'");
        }
        has_links = true;
      } else
        c.skip();
    } while (c.eat(','));
    c.expect('}', "'}'");
  }
  c.ws();
  if (c.p != c.end)
    bad("trailing characters after the flow");
  if (not(has_id && has_bytes && has_start && has_end && has_links))
    bad(std::string("missing field \"") +
        (not has_id ? "id" : not has_bytes ? "bytes" : not has_start ? "start_s" : not has_end ? "end_s" : "links") +
        "\"");
  auto kit = std::find(F.kinds.begin(), F.kinds.end(), kind_name);
  if (kit == F.kinds.end()) {
    if (F.kinds.size() >= 255)
      bad("too many distinct kinds");
    F.kinds.push_back(kind_name);
    kit = F.kinds.end() - 1;
  }
  auto kind = uint8_t(kit - F.kinds.begin());

  key.assign(reinterpret_cast<const char*>(links.data()), links.size() * sizeof(uint32_t));
  auto it = F.path_id.find(key);
  uint32_t pid;
  if (it == F.path_id.end()) {
    pid = uint32_t(F.paths.size());
    F.paths.push_back(links);
    F.path_id.emplace(key, pid);
  } else
    pid = it->second;

  F.id.push_back(id);
  F.start.push_back(start);
  F.bytes.push_back(std::round(bytes));
  F.ss_end.push_back(end);
  F.path.push_back(pid);
  F.kind.push_back(kind);
}

/* Reads the file in blocks, line by line (no mmap: a file of several hundred
 * MB would then count in the resident set). */
static void read_flows(const char* fname, Flows& F)
{
  FILE* fh = std::fopen(fname, "rb");
  if (not fh)
    bad(std::string("cannot open: ") + std::strerror(errno));
  const size_t BLOCK = 8 << 20;
  std::vector<char> buf(BLOCK);
  size_t have = 0;
  uint64_t base = 0; /* file offset of buf[0] */
  uint64_t line = 0;
  std::vector<uint32_t> links;
  std::string key;
  bool header = false, eof = false;
  while (not eof || have > 0) {
    if (not eof) {
      if (have == buf.size())
        buf.resize(buf.size() * 2); /* a line longer than the buffer */
      size_t got = std::fread(buf.data() + have, 1, buf.size() - have, fh);
      if (got == 0) {
        if (std::ferror(fh))
          bad(std::string("read error: ") + std::strerror(errno));
        eof = true;
      }
      have += got;
    }
    size_t pos = 0;
    while (pos < have) {
      const char* s  = buf.data() + pos;
      const char* nl = static_cast<const char*>(std::memchr(s, '\n', have - pos));
      if (not nl && not eof)
        break;
      const char* e = nl ? nl : buf.data() + have;
      ++line;
      try {
        Cursor c{s, e};
        c.ws();
        if (c.p < c.end) {
          if (not header) {
            parse_header(F, c);
            header = true;
          } else {
            F.offset.push_back(base + pos);
            parse_flow(F, c, links, key);
          }
        }
      } catch (const BadFile& b) {
        std::fclose(fh);
        bad("line " + std::to_string(line) + ": " + b.msg);
      }
      pos = (e - buf.data()) + (nl ? 1 : 0);
    }
    std::memmove(buf.data(), buf.data() + pos, have - pos);
    have -= pos;
    base += pos;
  }
  std::fclose(fh);
  if (not header)
    bad("empty file (not a --flows file)");
}

/* One line of the file, for the report. */
static std::string read_line(const char* fname, uint64_t off)
{
  std::string out;
  FILE* fh = std::fopen(fname, "rb");
  if (not fh)
    return out;
  if (std::fseek(fh, long(off), SEEK_SET) != 0) {
    std::fclose(fh);
    return out;
  }
  int ch;
  while ((ch = std::fgetc(fh)) != EOF && ch != '\n')
    out += char(ch);
  std::fclose(fh);
  return out;
}

/* "job", "task" of a flow's line, for the report. */
static std::string job_task(const std::string& line)
{
  std::string job = "?", task = "?", tmp;
  try {
    Cursor c{line.data(), line.data() + line.size()};
    c.expect('{', "'{'");
    do {
      std::string k(c.str(tmp));
      c.expect(':', "':'");
      if (k == "job" || k == "task") {
        std::string v = c.null() ? "-" : std::string(c.str(tmp));
        (k == "job" ? job : task) = v;
      } else
        c.skip();
    } while (c.eat(','));
  } catch (const BadFile&) {
  }
  return job + "/" + task;
}

/* -------------------------------------------------------------- simulation */

struct Replay {
  const Flows& F;
  std::vector<double> end; /* SimGrid's end of each flow (s), NaN if none */
  std::vector<uint32_t> order;
  size_t next = 0;
  std::vector<sg4::Host*> host; /* per path: the host whose uplinks are the path */
  sg4::Host* sink = nullptr;
  /* Comms in flight (SimGrid must keep them until they completed). */
  std::vector<sg4::CommPtr> slot;
  std::vector<uint32_t> slot_flow, free_slots, done_slots;
  size_t started = 0, completed = 0, max_in_flight = 0, in_flight = 0;
  /* Progress on stderr, when it is a terminal. */
  bool progress = false;
  size_t calls   = 0;
  std::chrono::steady_clock::time_point last_progress;
  double max_clock_gap = 0; /* |finish time - clock| at completion (expect 0) */

  explicit Replay(const Flows& f) : F(f), end(f.size(), NAN) {}

  void release_done()
  {
    for (uint32_t s : done_slots) {
      slot[s] = nullptr;
      free_slots.push_back(s);
    }
    done_slots.clear();
  }

  /* Timer callback (runs in SimGrid's maestro): starts every flow due now,
   * then arms a timer at the next start. */
  void start_due()
  {
    release_done();
    if (next >= order.size())
      return;
    double t = F.start[order[next]];
    while (next < order.size() && F.start[order[next]] == t) {
      uint32_t f = order[next++];
      if (F.bytes[f] <= 0 || F.paths[F.path[f]].empty()) {
        /* Nothing to move, or no resource to limit it: done at once. */
        end[f] = sg4::Engine::get_clock();
        continue;
      }
      uint32_t s;
      if (free_slots.empty()) {
        s = uint32_t(slot.size());
        slot.emplace_back();
        slot_flow.push_back(0);
      } else {
        s = free_slots.back();
        free_slots.pop_back();
      }
      slot_flow[s] = f;
      /* Comm::sendto_async starts the transfer at once; as it is started
       * from maestro (not from an actor), SimGrid reports its completion
       * (Activity::on_completion, with its finish time) as soon as the
       * network action ends, without anybody waiting on it. */
      sg4::CommPtr c = sg4::Comm::sendto_async(host[F.path[f]], sink, uint64_t(F.bytes[f]));
      c->set_data(reinterpret_cast<void*>(uintptr_t(s) + 1));
      slot[s] = std::move(c);
      ++started;
      ++in_flight;
      max_in_flight = std::max(max_in_flight, in_flight);
    }
    if (progress && (++calls & 0xFF) == 0) {
      auto now = std::chrono::steady_clock::now();
      if (now - last_progress > std::chrono::seconds(2)) {
        last_progress = now;
        std::fprintf(stderr, "\rsimgrid-replay: %zu of %zu flows started, simulated time %.0f s, %zu in flight   ",
                     next, order.size(), sg4::Engine::get_clock(), in_flight);
      }
    }
    if (next < order.size())
      simgrid::kernel::timer::Timer::set(F.start[order[next]], [this] { start_due(); });
  }

  void on_completion(sg4::Activity const& a)
  {
    const auto* c = dynamic_cast<const sg4::Comm*>(&a);
    if (not c)
      return;
    auto tag = reinterpret_cast<uintptr_t>(c->get_data<void>());
    if (tag == 0)
      return;
    uint32_t s = uint32_t(tag - 1);
    uint32_t f = slot_flow[s];
    if (a.get_state() != sg4::Activity::State::FINISHED) {
      std::fprintf(stderr, "simgrid-replay: SimGrid reports flow %" PRId64 " as %s, not finished\n", F.id[f],
                   a.get_state_str());
      std::exit(3);
    }
    end[f]        = c->get_finish_time();
    max_clock_gap = std::max(max_clock_gap, std::fabs(end[f] - sg4::Engine::get_clock()));
    done_slots.push_back(s);
    ++completed;
    --in_flight;
  }
};

/* ------------------------------------------------------------------ report */

static double rss_mb()
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0; /* KB on Linux */
}

static void usage(FILE* out)
{
  std::fprintf(out, "usage: replay FLOWS.jsonl [--out ENDS] [--check TOL_MS] [--cfg=NAME:VALUE...]\n");
}

int main(int argc, char* argv[])
{
  auto t0             = std::chrono::steady_clock::now();
  const char* fname   = nullptr;
  const char* outname = nullptr;
  double check_ms     = -1;
  std::vector<std::string> cfg; /* --cfg=name:value, passed on to SimGrid */
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    } else if ((a == "--out" || a == "--check") && i + 1 >= argc) {
      std::fprintf(stderr, "simgrid-replay: %s needs a value\n", a.c_str());
      return 2;
    } else if (a == "--out")
      outname = argv[++i];
    else if (a == "--check") {
      char* e;
      check_ms = std::strtod(argv[++i], &e);
      if (*e || not(check_ms >= 0)) {
        std::fprintf(stderr, "simgrid-replay: --check wants a tolerance in ms, got %s\n", argv[i]);
        return 2;
      }
    } else if (a.rfind("--cfg=", 0) == 0 && a.size() > 6) {
      cfg.push_back(a.substr(6));
    } else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "simgrid-replay: unknown option %s\n", a.c_str());
      usage(stderr);
      return 2;
    } else if (not fname)
      fname = argv[i];
    else {
      std::fprintf(stderr, "simgrid-replay: more than one flows file given\n");
      return 2;
    }
  }
  if (not fname) {
    usage(stderr);
    return 2;
  }

  FILE* out = nullptr; /* opened now, not after a long replay */
  if (outname && not(out = std::fopen(outname, "w"))) {
    std::fprintf(stderr, "simgrid-replay: cannot write %s: %s\n", outname, std::strerror(errno));
    return 2;
  }
  Flows F;
  try {
    read_flows(fname, F);
  } catch (const BadFile& b) {
    std::fprintf(stderr, "simgrid-replay: %s: %s\n", fname, b.msg.c_str());
    return 2;
  }
  auto t_parsed = std::chrono::steady_clock::now();

  /* ---- SimGrid: CM02 (max-min), no TCP window bound, no cross-traffic,
   * zero latency, tight precisions. Configured before the first zone is
   * created, as that creates the models. */
  int sg_argc      = 1;
  char sg_name[]   = "simgrid-replay";
  char* sg_argv[]  = {sg_name, nullptr};
  xbt_log_control_set("root.thresh:warning");
  sg4::Engine e(&sg_argc, sg_argv);
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/optim:Lazy");
  sg4::Engine::set_config("network/TCP-gamma:0");
  sg4::Engine::set_config("network/crosstraffic:0");
  sg4::Engine::set_config("network/latency-factor:1");
  sg4::Engine::set_config("network/bandwidth-factor:1");
  sg4::Engine::set_config("network/weight-S:0");
  /* Saturation test of the max-min solver, relative to a link's capacity
   * (default 1e-5): with 1e-11 a link counts as saturated when less than
   * ~1e-3 B/s of its capacity is left. */
  sg4::Engine::set_config("maxmin/precision:1e-11");
  /* Two events less than this apart are handled together (default 1e-9 s). */
  sg4::Engine::set_config("surf/precision:1e-10");
  for (auto const& c : cfg) {
    try {
      sg4::Engine::set_config(c);
    } catch (const std::exception& ex) {
      std::string what = ex.what();
      std::fprintf(stderr, "simgrid-replay: --cfg=%s: %s\n", c.c_str(), what.substr(0, what.find('\n')).c_str());
      return 2;
    }
  }

  /* One star zone: each distinct path is a host whose "up" links are the
   * path's resources, in order; every flow goes from its path's host to one
   * sink host that has no links. A star zone's routes cost one entry per
   * host, so this is linear in the number of distinct paths. */
  auto* zone = sg4::create_star_zone("slotsim");
  std::vector<sg4::Link*> links;
  links.reserve(F.res_name.size());
  for (size_t r = 0; r < F.res_name.size(); r++)
    links.push_back(zone->create_link(F.res_name[r], F.res_cap[r] * MB)
                        ->set_latency(0)
                        ->set_sharing_policy(sg4::Link::SharingPolicy::SHARED)
                        ->seal());
  Replay R(F);
  R.host.reserve(F.paths.size());
  for (size_t p = 0; p < F.paths.size(); p++) {
    sg4::Host* h = zone->create_host("path" + std::to_string(p), 1.0)->seal();
    std::vector<sg4::LinkInRoute> route;
    route.reserve(F.paths[p].size());
    for (uint32_t r : F.paths[p])
      route.emplace_back(links[r]);
    if (not route.empty())
      zone->add_route(h->get_netpoint(), nullptr, nullptr, nullptr, route, false);
    R.host.push_back(h);
  }
  R.sink = zone->create_host("sink", 1.0)->seal();
  zone->seal();

  /* Flows in order of start (the file's order, kept for equal starts). */
  R.order.resize(F.size());
  for (uint32_t i = 0; i < F.size(); i++)
    R.order[i] = i;
  std::stable_sort(R.order.begin(), R.order.end(), [&F](uint32_t a, uint32_t b) { return F.start[a] < F.start[b]; });

  R.progress      = isatty(2);
  R.last_progress = std::chrono::steady_clock::now();
  sg4::Activity::on_completion_cb([&R](sg4::Activity const& a) { R.on_completion(a); });
  if (not R.order.empty())
    simgrid::kernel::timer::Timer::set(F.start[R.order[0]], [&R] { R.start_due(); });
  auto t_built = std::chrono::steady_clock::now();
  e.run();
  R.release_done();
  if (R.progress)
    std::fprintf(stderr, "\r%*s\r", 100, "");
  auto t_run = std::chrono::steady_clock::now();

  /* ---- ends file: one line per flow, in file order: id and SimGrid's end (s). */
  if (out) {
    std::fprintf(out, "# id end_s (SimGrid %s replay of %s)\n", "CM02", fname);
    for (size_t f = 0; f < F.size(); f++) {
      if (std::isnan(R.end[f]))
        std::fprintf(out, "%" PRId64 " null\n", F.id[f]);
      else
        std::fprintf(out, "%" PRId64 " %.9f\n", F.id[f], R.end[f]);
    }
    if (std::fclose(out) != 0) {
      std::fprintf(stderr, "simgrid-replay: cannot write %s\n", outname);
      return 2;
    }
  }

  /* ---- comparison */
  size_t unfinished = 0, never = 0;
  std::vector<double> d;
  std::vector<uint32_t> who;
  d.reserve(F.size());
  size_t later = 0, earlier = 0;
  for (uint32_t f = 0; f < F.size(); f++) {
    if (std::isnan(R.end[f]))
      ++never;
    if (std::isnan(F.ss_end[f])) {
      ++unfinished;
      continue;
    }
    double diff = (F.ss_end[f] - R.end[f]) * 1000.0; /* NaN if SimGrid never ended it */
    if (std::isnan(diff))
      diff = INFINITY;
    if (diff > 0)
      ++later;
    else if (diff < 0)
      ++earlier;
    d.push_back(std::fabs(diff));
    who.push_back(f);
  }
  std::vector<double> s = d;
  std::sort(s.begin(), s.end());
  auto pct = [&s](double q) {
    if (s.empty())
      return 0.0;
    size_t k = size_t(std::ceil(q * double(s.size())));
    return s[std::min(s.size() - 1, k == 0 ? 0 : k - 1)];
  };
  size_t over1 = 0, over10 = 0;
  for (double x : d) {
    over1 += x > 1.0;
    over10 += x > 10.0;
  }
  auto pc = [&d](size_t n) { return d.empty() ? 0.0 : 100.0 * double(n) / double(d.size()); };

  std::printf("SimGrid replay of %s\n", fname);
  std::printf("  %s, CM02 max-min, maxmin/precision %g, surf/precision %g\n", SIMGRID_VERSION_STRING,
              simgrid::config::get_value<double>("maxmin/precision"), simgrid::config::get_value<double>("surf/precision"));
  std::printf("  flows replayed: %zu (%zu distinct paths over %zu resources; at most %zu in flight)\n", F.size(),
              F.paths.size(), F.res_name.size(), R.max_in_flight);
  std::printf("  unfinished in slotsim's run (not compared): %zu\n", unfinished);
  if (never)
    std::printf("  never ended in SimGrid: %zu\n", never);
  std::printf("  |slotsim end - SimGrid end| over %zu finished flows (ms):\n", d.size());
  std::printf("    median %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f\n", pct(0.5), pct(0.9), pct(0.99),
              pct(0.999), s.empty() ? 0.0 : s.back());
  std::printf("    beyond 1 ms: %zu (%.2f %%)  beyond 10 ms: %zu (%.2f %%)\n", over1, pc(over1), over10, pc(over10));
  std::printf("    slotsim later: %zu, earlier: %zu, equal: %zu\n", later, earlier, d.size() - later - earlier);
  if (not d.empty()) {
    std::vector<size_t> idx(d.size());
    for (size_t i = 0; i < idx.size(); i++)
      idx[i] = i;
    size_t k = std::min<size_t>(10, idx.size());
    std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&d, &who](size_t a, size_t b) {
      return d[a] != d[b] ? d[a] > d[b] : who[a] < who[b];
    });
    std::printf("  worst %zu:\n", k);
    std::printf("    %10s  %-8s %-24s %14s %14s %10s\n", "id", "kind", "job/task", "slotsim_s", "simgrid_s", "diff_ms");
    for (size_t i = 0; i < k; i++) {
      uint32_t f = who[idx[i]];
      std::string jt = job_task(read_line(fname, F.offset[f]));
      std::printf("    %10" PRId64 "  %-8s %-24s %14.3f %14.6f %+10.3f\n", F.id[f], F.kinds[F.kind[f]].c_str(),
                  jt.c_str(), F.ss_end[f], R.end[f], (F.ss_end[f] - R.end[f]) * 1000.0);
    }
  }
  auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  auto t_end = std::chrono::steady_clock::now();
  std::printf("  replay cost: %.1f s wall (read %.1f s, platform %.1f s, simulation %.1f s), peak RSS %.0f MB\n",
              secs(t0, t_end), secs(t0, t_parsed), secs(t_parsed, t_built), secs(t_built, t_run), rss_mb());
  if (R.max_clock_gap > 0)
    std::printf("  note: a finish time differed from the clock at completion by %.3g s\n", R.max_clock_gap);
  if (outname)
    std::printf("  ends written to %s\n", outname);

  R.slot.clear();
  if (check_ms >= 0) {
    bool ok = never == 0 && (s.empty() || s.back() <= check_ms);
    std::printf("check (every finished flow within %g ms): %s (largest difference %.3g ms)\n", check_ms,
                ok ? "PASS" : "FAIL", s.empty() ? 0.0 : s.back());
    return ok ? 0 : 1;
  }
  return 0;
}

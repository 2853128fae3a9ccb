# `snarkpipe bench service` on the CPU at a small shape: it must finish with every proof of both
# runs verified (the command fails otherwise) and report the overhead and the upload numbers.
# Run as: cmake -DSNARKPIPE=... -DOUT=... -P bench_service_check.cmake
execute_process(
  COMMAND ${SNARKPIPE} bench service --backend cpu --shape-scale 1/4096 --partitions 2 --proofs 4 --concurrency 2
          --set synthesis.workers=1 --json -o ${OUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench service failed (${rc}):\n${stderr}")
endif()
file(READ ${OUT} record)
string(JSON command GET "${record}" command)
if(NOT command MATCHES "^snarkpipe bench service")
  message(FATAL_ERROR "the record's command is '${command}'")
endif()
foreach(run engine_alone service)
  string(JSON verified GET "${record}" results ${run} proofs_verified)
  if(NOT verified EQUAL 4)
    message(FATAL_ERROR "${run}: ${verified} proofs verified, not 4")
  endif()
  string(JSON s GET "${record}" results ${run} s_per_proof)
  if(NOT s GREATER 0)
    message(FATAL_ERROR "${run}: s/proof is ${s}")
  endif()
endforeach()
string(JSON overhead GET "${record}" results overhead)
string(JSON throughput GET "${record}" results upload_throughput_bytes_per_s)
string(JSON per_job GET "${record}" results service upload_bytes_per_job)
string(JSON accepted GET "${record}" results upload_to_accepted_p50_s)
if(NOT throughput GREATER 0 OR NOT per_job GREATER 0 OR NOT accepted GREATER 0)
  message(FATAL_ERROR "upload numbers missing: ${throughput} B/s, ${per_job} B per job, ${accepted} s to acceptance")
endif()
# Not the 2 % target (that is the GPU's, at full shape): only that the number is a number.
if(overhead LESS -0.9 OR overhead GREATER 10)
  message(FATAL_ERROR "overhead ${overhead} is not a plausible measurement")
endif()
message(STATUS "overhead ${overhead}, upload ${throughput} B/s")

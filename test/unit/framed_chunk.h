#pragma once
// A finished chunk as the file holds it ("varint length + Chunk"), read
// back by libprotobuf: what the agent's and the stacks' unit tests check
// their records in.
#include <catch2/catch.hpp>

#include <google/protobuf/io/coded_stream.h>

#include <string>

#include "proto/prof.pb.h"

inline prof::proto::Chunk parse_framed(const std::string& framed) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(framed.data()),
                                            static_cast<int>(framed.size()));
  uint32_t length = 0;
  REQUIRE(in.ReadVarint32(&length));
  REQUIRE(length == framed.size() - static_cast<size_t>(in.CurrentPosition()));
  prof::proto::Chunk chunk;
  REQUIRE(chunk.ParseFromArray(framed.data() + in.CurrentPosition(), static_cast<int>(length)));
  return chunk;
}

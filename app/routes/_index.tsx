import type { MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { GigCard } from "~/components/gig-card";
import { categoryInitials } from "~/domain/catalog-vocabulary";
import { listFeaturedGigs } from "~/models/catalog-search.server";
import { listCategories } from "~/models/category.server";
import { getDb } from "~/server/db.server";

/** The main host's home page (the admin host's `/` is the admin dashboard: app/utils/site-routes.ts). */
export async function loader() {
  const db = getDb();
  const [categories, featured] = await Promise.all([listCategories(db), listFeaturedGigs(db)]);
  return { categories, featured };
}

export default function Index() {
  const data = useLoaderData<typeof loader>();
  return (
    <>
      <Hero />
      <WhatIsSoko />
      <section className="section section-alt" aria-labelledby="categories-title">
        <div className="container">
          <h2 id="categories-title">Browse by Category</h2>
          <ul className="card-grid category-grid">
            {data.categories.map((category) => (
              <li key={category.id}>
                <Link to={`/browse?category=${encodeURIComponent(category.slug)}`} className="category-card">
                  <span className={`category-badge cat-${category.slug}`} aria-hidden="true">
                    {categoryInitials(category.name)}
                  </span>
                  <span className="category-name">{category.name}</span>
                  <span className="category-description">{category.description}</span>
                  <span className="category-count">
                    {category.gigCount} {category.gigCount === 1 ? "service" : "services"}
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        </div>
      </section>
      <section className="section" aria-labelledby="featured-title">
        <div className="container">
          <div className="section-head">
            <h2 id="featured-title">Featured Services</h2>
            <Link to="/browse">View all services</Link>
          </div>
          {data.featured.length > 0 ? (
            <ul className="card-grid gig-grid">
              {data.featured.map((gig) => (
                <li key={gig.id}>
                  <GigCard gig={gig} />
                </li>
              ))}
            </ul>
          ) : (
            <p>
              No services are published yet. Check back soon, or <Link to="/freelancer/register">offer yours</Link>.
            </p>
          )}
        </div>
      </section>
      <HowItWorks />
      <WhyChooseSoko />
      <section className="section cta" aria-labelledby="cta-title">
        <div className="container">
          <h2 id="cta-title">Ready to get started?</h2>
          <p>Join thousands of Ugandan businesses and freelancers working together on Soko.</p>
          <p className="cta-actions">
            <Link to="/register" className="button button-light">
              Join Soko
            </Link>
            <Link to="/freelancer/register" className="cta-link">
              Become a seller
            </Link>
          </p>
        </div>
      </section>
    </>
  );
}

function Hero() {
  return (
    <section className="hero" aria-labelledby="hero-title">
      <div className="container">
        <h1 id="hero-title">Find the right Ugandan freelancer for your business</h1>
        <p className="hero-lead">Fixed-price services from vetted local talent. Your payment is held safely in escrow until you approve the work.</p>
        <Form method="get" action="/search" className="search-form" role="search">
          <label htmlFor="hero-q" className="visually-hidden">
            Search for a service
          </label>
          <input id="hero-q" type="search" name="q" placeholder="Try “logo design” or “website”" maxLength={200} autoComplete="off" />
          <button type="submit" className="button">
            Search
          </button>
        </Form>
        <p className="hero-actions">
          <Link to="/register" className="button button-light">
            Get Started
          </Link>
          <Link to="/help" className="hero-link">
            How it works
          </Link>
        </p>
      </div>
    </section>
  );
}

function WhatIsSoko() {
  return (
    <section className="section" aria-labelledby="what-title">
      <div className="container">
        <h2 id="what-title">What is Soko?</h2>
        <p className="section-lead">
          Soko is Uganda’s marketplace for fixed-price freelance services. Clients see the price before they order; freelancers get paid for work that is
          approved.
        </p>
        <div className="card-grid two-up">
          <article className="panel">
            <h3>For businesses</h3>
            <ul className="check-list">
              <li>Hire vetted, rated freelancers for design, web, writing, marketing and more</li>
              <li>Chat with a freelancer before you order</li>
              <li>Pay a fixed price in UGX, held in escrow until you approve the work</li>
            </ul>
            <Link to="/browse">Browse services</Link>
          </article>
          <article className="panel">
            <h3>For freelancers</h3>
            <ul className="check-list">
              <li>Offer your skills as gigs with Basic, Standard and Premium packages</li>
              <li>Reach clients across Uganda and build your reputation with reviews</li>
              <li>Get paid safely: the client’s payment is secured before you start</li>
            </ul>
            <Link to="/freelancer/register">Become a seller</Link>
          </article>
        </div>
      </div>
    </section>
  );
}

const steps = [
  { title: "Find a freelancer", text: "Search or browse by category and compare ratings, reviews and prices." },
  { title: "Discuss your project", text: "Message the freelancer to agree what you need and when." },
  { title: "Pay securely", text: "Pay the fixed price. We hold it in escrow until the work is done." },
  { title: "Delivery and feedback", text: "Approve the delivery to release payment, then leave a review." },
];

function HowItWorks() {
  return (
    <section className="section section-alt" aria-labelledby="how-title">
      <div className="container">
        <h2 id="how-title">How it works</h2>
        <ol className="card-grid steps">
          {steps.map((step, index) => (
            <li key={step.title} className="step">
              <span className="step-number" aria-hidden="true">
                {index + 1}
              </span>
              <h3>{step.title}</h3>
              <p>{step.text}</p>
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}

const reasons = [
  { title: "Local talent", text: "Freelancers who know Uganda: its languages, its markets and its customers." },
  { title: "Fast delivery", text: "Clear delivery times on every package, from one day to a month." },
  { title: "Affordable rates", text: "Fixed prices in UGX that suit small businesses, with no surprises." },
  { title: "Quality work", text: "Ratings and reviews from real clients, and escrow until you are satisfied." },
];

function WhyChooseSoko() {
  return (
    <section className="section" aria-labelledby="why-title">
      <div className="container">
        <h2 id="why-title">Why choose Soko?</h2>
        <ul className="card-grid reasons">
          {reasons.map((reason) => (
            <li key={reason.title} className="panel">
              <h3>{reason.title}</h3>
              <p>{reason.text}</p>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = () => {
  return [
    { title: "Soko: hire Ugandan freelancers for fixed-price services" },
    {
      name: "description",
      content:
        "Find vetted Ugandan freelancers for design, web development, writing, video, marketing and local services. Fixed prices in UGX, paid through escrow.",
    },
  ];
};
